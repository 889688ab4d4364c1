"""The executor: user code and the compiler run in child processes that may crash or hang.

Every command that runs a user's kernel code away from the main process (diff's variants, passes'
dump capture, grid's interpreter) goes through an Executor (executor.py); `pool` picks the
implementation:

    with pool(jobs, timeout) as workers:            # local.Workers, or cluster.RayWorkers (--cluster)
        workers.warm(preload="pkg.module")          # optional: start-up overlapped (a no-op on Ray)
        outcomes = workers.run(tasks, on_done)      # list[Outcome] in task order; on_done(index, outcome)
        value = workers.call(task(function, *args)) # one task's value, or its error raised here
        handle = workers.submit(task(...))          # one task started now: handle.result(), .done(),
        handle.cancel()                             # .cancel() from any thread: its process killed

A Task is plain picklable data, made by `task(function, *args)` (tasks.py): "module:function" (named
from the function itself), its arguments, the interpreter to run it in (`python`: another Triton
release's environment; None: this one) and, for Ray, the files its arguments name (`files`, sent
with it: nodes share no disk). On a cluster (`on_cluster()`) a task of another release names no
interpreter: app/walk/releases.py's `task` wraps it so that the node finds or makes its own environment
of that release. Both implementations keep the same guarantees: a task that crashes or passes
`timeout` is one failed Outcome (locally, "timed out after N s (stuck at FILE:LINE)"); Ctrl-C and
SIGTERM end every task still running; a cancelled task's process is killed; outcomes are the same
values. Local workers (local.py, worker.py) die with their parent whatever the signal, ignore the
terminal's Ctrl-C and never write to stdout.

A front end that answers many requests over its life (the agent server, the explorer) holds a
`Session` (session.py): one task at a time in a warm worker, each value kept by task and by the
state of the files it read, a call cancellable from any thread. Its first worker may be started
ahead of the command line's own imports (`start_ahead`, from launch.py), then taken by `warm_pool`.

Foreign programs (ncu, pip, the program `trace` runs) go through `Program` (programs.py, under
supervisor.py): they too die with their parent, run under a time limit where one is given, and are
stopped (SIGTERM, then SIGKILL; the programs they started too) when the limit passes or the parent
is interrupted.
"""

from .executor import Executor, Handle, drive_cluster, on_cluster, pool, use_cluster
from .local import LocalHandle, Workers, close_ahead, start_ahead, warm_pool
from .programs import STOP_GRACE, Finished, Program, not_started
from .session import Call, Session
from .tasks import Cancelled, Outcome, Relayed, Task, function_named, name_of, perform, task

__all__ = [
    "STOP_GRACE",
    "Call",
    "Cancelled",
    "Executor",
    "Finished",
    "Handle",
    "LocalHandle",
    "Outcome",
    "Program",
    "Relayed",
    "Session",
    "Task",
    "Workers",
    "close_ahead",
    "drive_cluster",
    "function_named",
    "name_of",
    "not_started",
    "on_cluster",
    "perform",
    "pool",
    "start_ahead",
    "task",
    "use_cluster",
    "warm_pool",
]
