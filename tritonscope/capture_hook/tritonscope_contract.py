"""What tritonscope and a program it traces agree on: the environment `trace` runs the program
with, the files of a capture folder, and the exit code that says a wanted launch was reached.

Both processes read this one file. tritonscope imports it as tritonscope.capture_hook.tritonscope_contract
(captures/, app/trace.py, app/walk/from_run.py). Inside the traced program, where tritonscope may not be
importable, it is the top-level module `tritonscope_contract`: this folder is on the program's
PYTHONPATH (captures/environment.py puts it there), so the hook beside it (sitecustomize.py)
imports it, and so do triton_api/capture.py and triton_api/simulated/ when the hook has loaded them
by their paths. Hence it imports nothing, and its name is one a user's program is unlikely to have.
tests/test_architecture.py holds every other module to naming these variables through it.
"""

# The traced program's environment: the names tritonscope sets and the program's side reads.
ENV_CAPTURE = "TRITONSCOPE_CAPTURE"  # the compile log (CAPTURE_LOG) the hook appends one line per compile to
ENV_CAPTURE_CACHE = "TRITONSCOPE_CAPTURE_CACHE"  # the folder (CACHE_FOLDER) the hook copies each compile into
ENV_LAUNCHES = "TRITONSCOPE_LAUNCHES"  # the launch log (LAUNCH_LOG); empty: no launch is recorded
ENV_LAUNCH_LIMIT = "TRITONSCOPE_LAUNCH_LIMIT"  # launches recorded per kernel and process
ENV_STOP_AT_LAUNCH = "TRITONSCOPE_STOP_AT_LAUNCH"  # --from-run: JSON {name, file, launch} of the launch to end at
ENV_SIMULATED_DEVICE = "TRITONSCOPE_SIMULATED_DEVICE"  # trace --target: the device as JSON (core/targets.py)
ENV_AUTOTUNE_RULE = "TRITONSCOPE_AUTOTUNE_RULE"  # trace --autotune: the rule as JSON (core/autotune_rule.py)
ENV_AUTOTUNE_LOG = "TRITONSCOPE_AUTOTUNE_LOG"  # where the simulated GPU logs each autotune choice (AUTOTUNE_LOG)
ENV_STOPPED = "TRITONSCOPE_STOPPED"  # where the simulated GPU writes where a value read stopped it (STOP_RECORD)
ENV_ON_READ = "TRITONSCOPE_ON_READ"  # --values: "host", "stop", or the number a value read is answered with
ENV_HOST_MEMORY = "TRITONSCOPE_HOST_MEMORY"  # --host-memory: bytes the host's values may take
ENV_HOST_SECONDS = "TRITONSCOPE_HOST_SECONDS"  # the longest a kernel may run under the interpreter
ENV_READ_LOG = "TRITONSCOPE_READ_LOG"  # where each answered value read is logged (READ_LOG)
ENV_DEBUG = "TRITONSCOPE_DEBUG"  # trace --debug: a stop also writes the Python stack it was met in to stderr
ENV_MARKS = "TRITONSCOPE_MARKS"  # the mark log (MARK_LOG): tritonscope.mark("warmup") appends to it
ENV_MARK = "TRITONSCOPE_MARK"  # set by a program that cannot import tritonscope (os.environ) at a mark: its name
ENV_TORCH_COMPILES = "TRITONSCOPE_TORCH_COMPILES"  # the torch.compile log (TORCH_COMPILE_LOG); empty: none

DEFAULT_LAUNCH_LIMIT = 3

# The name the hook loads triton_api/simulated/ under in the traced program (--from-run's run of a
# kernel file, triton_api/file_run.py, finds it there).
SIMULATED_PACKAGE = "_tritonscope_simulated"

# A capture folder (`trace -o DIR`). The records' shapes are core/schemas.py's COMPILE_RECORD and
# LAUNCH_RECORD; tritonscope checks every line against them when it reads one.
CACHE_FOLDER = "cache"  # Triton's artifacts, one folder per compile, as in Triton's own cache
CAPTURE_LOG = "kernels.jsonl"  # one line per compile: source, specialization, environment
LAUNCH_LOG = "launches.jsonl"  # one line per recorded launch: grid, arguments, the program's line
AUTOTUNE_LOG = "autotune.jsonl"  # trace --target: which config each autotuned kernel launched, and why
SIMULATED_RECORD = "simulated.json"  # trace --target: the simulated GPU's description
STOP_RECORD = "stopped.json"  # trace --target: where the program was stopped, and what it asked
# what a stop says of an operator torch ran for real on the device (no fake kernel): no stand-in value helps
RUN_BY_TORCH = "run for real on the device by torch itself (not by the program's code)"
NO_SIMULATED_GPU = "no_simulated_gpu.json"  # trace --target: the module the program's Python lacks (torch)
READ_LOG = "reads.jsonl"  # trace --target: one line per value read answered (on the host, or with --values N)
HOST_VALUES_RECORD = "host_values.json"  # trace --target: operators logged and computed on the host, memory
MARK_LOG = "marks.jsonl"  # one line per mark the program passed (tritonscope.mark, or $TRITONSCOPE_MARK set)
TORCH_COMPILE_LOG = "torch_compiles.jsonl"  # one line per torch.compile frame compile: inputs, guards, why again

# --from-run: the traced program ends with this code right after the wanted launch is logged (a
# program's own exit rarely uses it).
LAUNCH_REACHED_EXIT = 87
