"""What runs besides the jobs: the outputs whose bytes changed since their jobs wrote them are
made again (checked here, once every rule is defined), the jobs' environment is set at the start,
and a failed job's empty directories are removed."""


remake_damaged_outputs()


onstart:
    set_job_environment()


onerror:
    prune_empty_dirs(PLAN.results, PLAN.resources, PLAN.logs)
