"""Values on the host switched on in a traced program (`--values host`): the program's operators,
compiled graphs, Triton launches and seeds of CUDA's generator go to host_values.LOG, reads are
answered from it, and at exit what was logged and computed goes to the capture."""

from __future__ import annotations

from .host_values import LOG, cublas_called, launched


def _seeding(answer):
    def manual_seed(seed, *args, **kwargs):
        LOG.seed(int(seed))
        return answer(seed, *args, **kwargs)

    return manual_seed


def install() -> None:
    """Log the program's operators on device tensors and its seeds of CUDA's generator (the program's
    reads are answered from this log: stop.py, value_reads.py), and its torch.compile graphs
    (compiled_values.py); at exit, what was logged and computed goes to the capture."""

    import torch

    from . import compiled_values, driver, reads, tensor_copies, torch_cuda, triton_values
    from .host_values import record_operator

    torch_cuda.RECORD[:] = [record_operator]
    driver.LAUNCHED[:] = [launched]
    driver.CUBLAS_CALLED[:] = [cublas_called]
    reads.HOST_READY[:] = [True]
    for name in ("manual_seed", "manual_seed_all"):
        setattr(torch.cuda, name, _seeding(getattr(torch.cuda, name)))
    compiled_values.install()
    triton_values.install()
    tensor_copies.install(torch)


def summary() -> None:
    """At exit: the operators logged and computed on the host, the seconds that took, and the traced
    process's peak memory (host_values.json; with --values stop or N, the log is empty)."""
    import json
    import os

    from . import budget
    from .shared import contract

    folder = os.path.dirname(os.environ.get(contract.ENV_READ_LOG) or "")
    if not folder or not os.path.isdir(folder):
        return
    record = {"recorded": LOG.recorded, "computed": LOG.computed, "host_seconds": round(LOG.seconds, 3)}
    record["peak_resident"] = budget.peak()
    with open(os.path.join(folder, contract.HOST_VALUES_RECORD), "w") as handle:
        json.dump(record, handle)
