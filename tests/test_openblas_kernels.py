"""The environment the workflow's jobs start with (ltrconv.pipeline.environment)."""

from ltrconv.pipeline import environment as openblas_kernels

CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
flags\t\t: fpu sse sse2 avx fma avx2 avx512f
"""


def test_cpu_flags_from_cpuinfo():
    assert {"avx2", "fma", "avx512f"} <= openblas_kernels.cpu_flags(CPUINFO)
    assert openblas_kernels.cpu_flags("processor\t: 0\n") == set()


def test_pins_haswell_where_the_cpu_runs_it():
    env = {}
    assert openblas_kernels.pin(env, {"avx2", "fma", "avx512f"}) == "Haswell"
    assert env == {"OPENBLAS_CORETYPE": "Haswell"}


def test_leaves_a_set_core_type_alone():
    env = {"OPENBLAS_CORETYPE": "Zen"}
    assert openblas_kernels.pin(env, {"avx2", "fma"}) == "Zen" and env["OPENBLAS_CORETYPE"] == "Zen"


def test_leaves_the_choice_to_openblas_without_avx2_and_fma():
    for flags in (set(), {"avx", "fma"}, {"avx2"}):
        env = {}
        assert openblas_kernels.pin(env, flags) is None and env == {}


def test_jobs_environment_keeps_what_the_user_set():
    env = {"OMP_WAIT_POLICY": "ACTIVE", "OPENBLAS_CORETYPE": "Zen"}
    assert openblas_kernels.for_jobs(env) == env == {"OMP_WAIT_POLICY": "ACTIVE",
                                                      "OPENBLAS_CORETYPE": "Zen"}
    env = {"OPENBLAS_CORETYPE": "Zen", "PYTHONPATH": "/a:/src"}
    got = openblas_kernels.for_jobs(env, "/src")
    assert got == {"OPENBLAS_CORETYPE": "Zen", "OMP_WAIT_POLICY": "PASSIVE",
                   "PYTHONPATH": "/src:/a"}
