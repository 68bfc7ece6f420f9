"""What runs besides the jobs: the outputs whose bytes changed since their jobs wrote them are
made again (checked here, once every rule is defined), the jobs' environment is set at the start,
a failed job's empty directories are removed, and the scheduler's last wake-up is cancelled at
the end."""


remake_damaged_outputs()


onstart:
    set_job_environment()


onsuccess:
    cancel_scheduler_wakeups()


onerror:
    prune_empty_dirs(PLAN.results, PLAN.resources, PLAN.logs)
    cancel_scheduler_wakeups()
