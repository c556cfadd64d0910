import flopspack
def test_version():
    assert flopspack.version() == flopspack.HEADER_VERSION
