"""The tests of hyblas, one folder a layer (a package, so that the folders may hold files of
the same name and the shared helpers import as ``tests.support``)."""
