"""idle.py imports launch_rows from here; the GPU-op table itself is traceattrib.gpuops."""
from ..gpuops import launch_rows

__all__ = ["launch_rows"]
