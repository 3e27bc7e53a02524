"""ScyllaDB multi-phase benchmark plugin for PerfKitBenchmarker."""
