import pytest

import stride


@pytest.fixture
def con():
    c = stride.connect()
    yield c
    c.close()
