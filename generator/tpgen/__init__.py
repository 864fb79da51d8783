"""tpgen: storage node spec → thread-pool-per-disk nginx config."""

__version__ = "0.1.0"
