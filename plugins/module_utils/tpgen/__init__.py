"""tpgen's node-side code as Ansible ships it: ``ansible.module_utils.tpgen`` on the node.

This tree mirrors generator/tpgen for the files a module needs and nothing else: the two
symlinks (spec/units.py, ops/doctor) reach the one copy in generator/, and these package
``__init__`` files stay empty so that nothing of tpgen's own package set-up (pydantic, click)
goes to a node. AnsiballZ ships only what the module imports from here. See
docs/operations.md, "doctor.yml: the fleet".
"""
