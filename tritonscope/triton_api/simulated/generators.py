"""torch.Generator(device="cuda") on the simulated GPU: a CPU build of torch has no CUDA generator, and
asking for one raised "Cannot get CUDA generator without ATen_cuda library ... -Wl,--no-as-needed",
which reads as a broken torch (h19b). The generator is the host's: every random draw here is the
host's generator's already (docs/trace.md), a GPU's own draws differ from its numbers whatever it is."""

from __future__ import annotations


def install(torch) -> None:
    class Generator(torch.Generator):
        """torch.Generator, the simulated GPU's being the host's."""

        def __new__(cls, device="cpu"):
            simulated = torch.device(device).type == "cuda"
            return super().__new__(cls, device="cpu" if simulated else device)

    torch.Generator = Generator
