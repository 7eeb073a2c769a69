"""Where the service's heavy work runs: bounded executors per kind of work, the rules worker
processes, and the per-workspace admission that keeps one workspace from taking them all."""
