"""`python -m tritonscope.isolate`: a worker of local.Workers (worker.py says what it does), or the
fork server those workers come from (zygote.py)."""

import os

if os.environ.get("TRITONSCOPE_ZYGOTE"):
    from tritonscope.isolate.zygote import main

    main()
else:
    from tritonscope.isolate.worker import serve

    serve()
