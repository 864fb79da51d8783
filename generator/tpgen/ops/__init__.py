"""Node operations: doctor, discover, host-vars editing.

May import spec.units and the plan's layout only, never the reverse.
"""
