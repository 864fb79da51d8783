"""Mirror of tpgen.ops.doctor for AnsiballZ: the node-side modules, each a symlink to the one copy.

Not mirrored: ``from_spec`` (``tpgen doctor SPEC`` needs tpgen.api, which a node does not have)
and the package's ``__init__`` (it re-exports ``from_spec``); tests/test_doctor.py checks that
every other module of the package is here.
"""
