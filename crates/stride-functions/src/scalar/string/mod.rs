//! VARCHAR functions. Positions and lengths count characters (UTF-8 code points),
//! never bytes, except `octet_length`. Results are built into a fresh string vector
//! (inputs that are slices of an argument are copied, so no output depends on an
//! input's buffers). One file per function or small family.

pub(crate) mod accents;
pub(crate) mod ascii;
pub(crate) mod bar;
pub(crate) mod case;
pub(crate) mod concat;
pub(crate) mod edit_distance;
pub(crate) mod format;
pub(crate) mod format_bytes;
pub mod glob;
pub(crate) mod grapheme;
pub mod hash;
pub(crate) mod hex;
pub(crate) mod left_right;
pub(crate) mod length;
pub(crate) mod like;
pub mod like_matcher;
pub(crate) mod normalize;
pub(crate) mod overlay;
pub(crate) mod pad;
pub(crate) mod path;
pub(crate) mod path_join;
pub(crate) mod printf;
pub(crate) mod quote;
pub(crate) mod repeat;
pub(crate) mod replace;
pub(crate) mod reverse;
pub(crate) mod search;
pub(crate) mod similarity;
pub(crate) mod split;
pub(crate) mod split_part;
pub(crate) mod substring;
pub(crate) mod to_base;
pub(crate) mod translate;
pub(crate) mod trim;
pub(crate) mod url;

use super::{BoundFunction, ScalarFunction};
use stride_common::{Error, Result, Vector};

/// Longest string a function may build (lpad, repeat): a guard against one call
/// exhausting memory.
pub(crate) const MAX_STRING_BYTES: usize = 1 << 28;

pub(crate) fn too_long() -> Error {
    Error::out_of_range(format!(
        "Requested string length exceeds the maximum of {MAX_STRING_BYTES} bytes"
    ))
}

/// Each string of `arg` mapped through `f`, which appends the result to its buffer.
pub(crate) fn map_strings(arg: &Vector, len: usize, f: fn(&str, &mut String)) -> Result<Vector> {
    let input = crate::kernels::StrSlot::new(arg);
    let mut buf = String::new();
    crate::kernels::map_rows_to_strings(&[arg], len, |i, out| {
        buf.clear();
        f(input.get(i), &mut buf);
        out.push(&buf);
        Ok(())
    })
}

/// Byte offset of the `k`-th character of `s` (0-based), or `s.len()` past the end.
#[inline]
pub(crate) fn char_offset(s: &str, k: usize) -> usize {
    if k >= s.len() {
        return s.len();
    }
    // with an ASCII prefix, character k starts at byte k
    if s.as_bytes()[..k].is_ascii() {
        return k;
    }
    s.char_indices().nth(k).map_or(s.len(), |(i, _)| i)
}

/// Number of characters in `s`.
#[inline]
pub(crate) fn char_count(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

pub(crate) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    use ScalarFunction as F;
    match f.func {
        F::Concat | F::ConcatOperator | F::ConcatWs => concat::evaluate(f.func, args, len),
        F::Like | F::NotLike | F::ILike | F::NotILike => like::evaluate(f.func, args, len),
        F::Length | F::OctetLength | F::BitLength | F::LengthGrapheme => {
            length::evaluate(f.func, args, len)
        }
        F::Lower | F::Upper | F::Initcap => case::evaluate(f.func, args, len),
        F::StripAccents => accents::evaluate(args, len),
        F::Substring => substring::evaluate(args, len),
        F::Trim | F::LTrim | F::RTrim => trim::evaluate(f.func, args, len),
        F::Replace => replace::evaluate(args, len),
        F::StartsWith | F::EndsWith | F::Contains | F::Position => {
            search::evaluate(f.func, args, len)
        }
        F::Left | F::Right => left_right::evaluate(f.func, args, len),
        F::Lpad | F::Rpad => pad::evaluate(f.func, args, len),
        F::Repeat => repeat::evaluate(args, len),
        F::Reverse => reverse::evaluate(args, len),
        F::SplitPart => split_part::evaluate(args, len),
        F::Ascii | F::Chr | F::Unicode => ascii::evaluate(f.func, args, len),
        F::StringSplit => split::evaluate(args, len),
        F::Levenshtein | F::DamerauLevenshtein | F::Hamming => {
            edit_distance::evaluate(f.func, args, len)
        }
        F::Jaccard | F::JaroSimilarity | F::JaroWinklerSimilarity => {
            similarity::evaluate(f.func, args, len)
        }
        F::Md5 | F::Sha1 | F::Sha256 => hash::evaluate(f.func, args, len),
        F::Md5Number(part) => hash::evaluate_md5_number(part, args, len),
        F::Translate => translate::evaluate(args, len),
        F::NfcNormalize => normalize::evaluate(args, len),
        F::UrlEncode | F::UrlDecode => url::evaluate(f.func, args, len),
        F::FormatBytes | F::FormatDecimalBytes => format_bytes::evaluate(f.func, args, len),
        F::ParseDirname | F::ParseDirpath | F::ParseFilename | F::ParsePath => {
            path::evaluate(f, args, len)
        }
        F::ToHex | F::ToBinary => hex::evaluate(f, args, len),
        F::Bar => bar::evaluate(args, len),
        F::Format => format::evaluate(f, args, len),
        F::Printf => printf::evaluate(f, args, len),
        F::Glob => glob::evaluate(args, len),
        F::Overlay => overlay::evaluate(args, len),
        F::PathJoin => path_join::evaluate(args, len),
        F::ToBase | F::ParseFormattedBytes => to_base::evaluate(f.func, args, len),
        F::LeftGrapheme | F::RightGrapheme | F::SubstringGrapheme => {
            grapheme::evaluate(f.func, args, len)
        }
        other => Err(Error::internal(format!(
            "{other:?} is not a string function"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets() {
        assert_eq!(char_offset("hello", 2), 2);
        assert_eq!(char_offset("héllo", 2), 3);
        assert_eq!(char_offset("héllo", 9), 6);
        assert_eq!(char_count("héllo"), 5);
        assert_eq!(char_offset("", 0), 0);
    }
}
