"""`python -m tritonscope.isolate`: a worker of local.Workers (worker.py says what it does), or the
fork server those workers come from (zygote.py)."""

import os

from tritonscope.isolate.zygote import ZYGOTE, main

if os.environ.get(ZYGOTE):
    main()
else:
    from tritonscope.isolate.worker import serve

    serve()
