"""Mirror of tpgen.ops.doctor for AnsiballZ: the node-side modules, each a symlink to the one copy.

Not mirrored: the package's ``__init__`` (it imports every check at once; the module imports
the ones it runs); tests/test_doctor.py checks that every other module of the package is here.
``tpgen doctor SPEC`` (tpgen.commands.doctor) needs tpgen.api, which a node does not have.
"""
