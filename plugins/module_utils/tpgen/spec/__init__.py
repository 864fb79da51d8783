"""Mirror of tpgen.spec for AnsiballZ: only units.py (a symlink) is reached from here."""
