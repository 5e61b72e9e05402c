//! The values of a JSON file as the text they were written with, for
//! `read_json_objects`, `read_json_objects_auto` and `read_ndjson_objects` (one
//! JSON column `json`, each value as written, without surrounding whitespace).
//! The file's format is decided as for `read_json` (`json.rs`); this splits a
//! morsel of it into values without building them: newline-delimited text by
//! lines, values one after another and array elements by letting `serde_json`
//! skip over each one and taking the bytes it went over.

use super::json::{malformed, JsonFormat};
use serde::de::IgnoredAny;
use stride_common::{Error, Result};

/// Calls `f` with the text of each value of `bytes` (`None` for a malformed one
/// that `on_error` let pass) until it returns false.
pub(crate) fn for_each_raw(
    bytes: &[u8],
    format: JsonFormat,
    path: &str,
    first_line: usize,
    f: &mut dyn FnMut(Option<&[u8]>) -> Result<bool>,
    on_error: &mut dyn FnMut(Error) -> Result<()>,
) -> Result<()> {
    match format {
        JsonFormat::NewlineDelimited => {
            for (this, l) in (first_line..).zip(bytes.split(|b| *b == b'\n')) {
                let l = l.trim_ascii();
                if l.is_empty() {
                    continue;
                }
                let ok = match serde_json::from_slice::<IgnoredAny>(l) {
                    Ok(_) => Some(l),
                    Err(e) => {
                        on_error(malformed(path, &e, this - 1))?;
                        None
                    }
                };
                if !f(ok)? {
                    break;
                }
            }
            Ok(())
        }
        JsonFormat::Array if bytes.trim_ascii_start().first() == Some(&b'[') => {
            match array_elements(bytes) {
                Some(items) => {
                    for x in items {
                        if !f(Some(x))? {
                            break;
                        }
                    }
                    Ok(())
                }
                None => {
                    // Malformed: parse it whole for the error that says where.
                    let e = serde_json::from_slice::<IgnoredAny>(bytes)
                        .err()
                        .unwrap_or_else(|| serde_json::from_str::<IgnoredAny>("[").unwrap_err());
                    on_error(malformed(path, &e, first_line - 1))?;
                    f(None)?;
                    Ok(())
                }
            }
        }
        _ => {
            let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<IgnoredAny>();
            let mut start = 0;
            while let Some(v) = stream.next() {
                match v {
                    Ok(_) => {
                        let end = stream.byte_offset();
                        if !f(Some(bytes[start..end].trim_ascii()))? {
                            break;
                        }
                        start = end;
                    }
                    Err(e) => {
                        // the rest cannot be read: one NULL for it
                        on_error(malformed(path, &e, first_line - 1))?;
                        f(None)?;
                        break;
                    }
                }
            }
            Ok(())
        }
    }
}

/// The elements of a JSON array as written, or `None` if it is malformed.
fn array_elements(bytes: &[u8]) -> Option<Vec<&[u8]>> {
    let skip = |at: &mut usize| {
        while *at < bytes.len() && bytes[*at].is_ascii_whitespace() {
            *at += 1;
        }
    };
    let mut at = 0;
    skip(&mut at);
    if bytes.get(at) != Some(&b'[') {
        return None;
    }
    at += 1;
    let mut items = Vec::new();
    skip(&mut at);
    if bytes.get(at) == Some(&b']') {
        at += 1;
    } else {
        loop {
            let mut one =
                serde_json::Deserializer::from_slice(&bytes[at..]).into_iter::<IgnoredAny>();
            one.next()?.ok()?;
            let end = at + one.byte_offset();
            items.push(bytes[at..end].trim_ascii());
            at = end;
            skip(&mut at);
            match bytes.get(at) {
                Some(b',') => {
                    at += 1;
                    skip(&mut at);
                }
                Some(b']') => {
                    at += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    skip(&mut at);
    (at == bytes.len()).then_some(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str, format: JsonFormat) -> Vec<Option<String>> {
        let mut out = Vec::new();
        for_each_raw(
            text.as_bytes(),
            format,
            "f.json",
            1,
            &mut |v| {
                out.push(v.map(|b| String::from_utf8_lossy(b).into_owned()));
                Ok(true)
            },
            &mut |_| Ok(()),
        )
        .unwrap();
        out
    }

    #[test]
    fn values_keep_their_text() {
        let s = |x: &str| Some(x.to_string());
        assert_eq!(
            raw(
                "{\"a\":1,\"b\":[1, 2]}\n\n  {\"c\": null}\n",
                JsonFormat::NewlineDelimited
            ),
            vec![s("{\"a\":1,\"b\":[1, 2]}"), s("{\"c\": null}")]
        );
        assert_eq!(
            raw("[{\"a\":1},{\"b\": 2}, 3]", JsonFormat::Array),
            vec![s("{\"a\":1}"), s("{\"b\": 2}"), s("3")]
        );
        assert_eq!(raw(" [ ] ", JsonFormat::Array), vec![]);
        assert_eq!(
            raw("{\"a\":1}  {\"b\":\n 2}\n", JsonFormat::Unstructured),
            vec![s("{\"a\":1}"), s("{\"b\":\n 2}")]
        );
        assert_eq!(
            raw("{\"a\":1}\n{\"a\":\n", JsonFormat::Unstructured),
            vec![s("{\"a\":1}"), None]
        );
        assert_eq!(raw("[1,", JsonFormat::Array), vec![None]);
    }
}
