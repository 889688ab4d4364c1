"""`python -m tritonscope.isolate`: a worker of local.Workers (worker.py says what it does)."""

from tritonscope.isolate.worker import serve

serve()
