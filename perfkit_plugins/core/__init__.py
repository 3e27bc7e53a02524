"""Pure logic: no I/O, no VMs, no PKB imports."""
