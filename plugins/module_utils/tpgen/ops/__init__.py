"""Mirror of tpgen.ops for AnsiballZ: only doctor/ (a symlink) is reached from here."""
