"""Trust-region Newton method with conjugate gradient steps (TRON).

Minimises a twice-differentiable convex f from w = 0 (Lin, Weng & Keerthi 2008, "Trust region
Newton method for large-scale logistic regression", JMLR 9, Algorithm 2 with Algorithm 1's
step bound), as liblinear-ranksvm (Lee & Lin 2014, ``tron.cpp``) runs it: each iteration solves
``H s = -g`` by conjugate gradient until ``|r| <= 0.1 |g|`` or the step leaves the region
``|s| <= delta`` (then it stops on the boundary); the step is taken when the actual reduction
exceeds ``eta0`` times the predicted one ``-(g.s + s.Hs / 2)``, and delta follows the ratio of
the two (eta = 1e-4, 0.25, 0.75; sigma = 0.25, 0.5, 4; a very successful step that reached the
boundary multiplies delta by 4). It stops when ``|grad f(w)| <= eps |grad f(0)|``, after
``max_iter`` accepted steps, when the predicted reduction is not positive, or when both
reductions fall below 1e-12 |f|.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from ..jit import njit

ETA0, ETA1, ETA2 = 1e-4, 0.25, 0.75
SIGMA1, SIGMA2, SIGMA3 = 0.25, 0.5, 4.0
CG_TOL = 0.1


@dataclass
class TronResult:
    w: np.ndarray
    f: float
    grad_norm: float
    grad_norm0: float
    n_iter: int  # accepted Newton steps
    n_cg: int  # Hessian-vector products
    converged: bool  # |grad| <= eps |grad f(0)| reached


@njit(cache=True)
def _dot(x, y):
    """Reference BLAS ``ddot`` (unrolled by five, as liblinear's bundled copy sums)."""
    n = len(x)
    acc = 0.0
    i = 0
    while i < n - 4:
        acc += x[i] * y[i] + x[i + 1] * y[i + 1] + x[i + 2] * y[i + 2] + x[i + 3] * y[i + 3] \
            + x[i + 4] * y[i + 4]
        i += 5
    while i < n:
        acc += x[i] * y[i]
        i += 1
    return acc


@njit(cache=True)
def _nrm2(x):
    """Reference BLAS ``dnrm2`` (scaled sum of squares, last element first)."""
    n = len(x)
    if n == 1:
        return abs(x[0])
    scale, ssq = 0.0, 1.0
    for i in range(n - 1, -1, -1):
        if x[i] != 0.0:
            a = abs(x[i])
            if scale < a:
                t = scale / a
                ssq = ssq * (t * t) + 1.0
                scale = a
            else:
                t = a / scale
                ssq += t * t
    return scale * np.sqrt(ssq)


def _cg_step(obj, g: np.ndarray, delta: float) -> tuple[np.ndarray, np.ndarray, int, bool]:
    """Approximate Newton step s within |s| <= delta, the residual r = -g - H s, the CG steps
    and whether s stopped on the boundary."""
    s = np.zeros_like(g)
    r = -g
    d = r.copy()
    tol = CG_TOL * _nrm2(g)
    rr = _dot(r, r)
    n = 0
    while _nrm2(r) > tol:
        n += 1
        Hd = obj.hess_vec(d)
        a = rr / _dot(d, Hd)
        s_try = s + a * d
        if _nrm2(s_try) > delta:
            s = s_try - a * d  # liblinear steps back from s_try, with that rounding
            # the root tau >= 0 of |s + tau d| = delta, in the form that avoids cancellation
            sd, ss, dd = _dot(s, d), _dot(s, s), _dot(d, d)
            gap = delta * delta - ss
            rad = math.sqrt(sd * sd + dd * gap)
            tau = gap / (sd + rad) if sd >= 0 else (rad - sd) / dd
            s = s + tau * d
            r = r - tau * Hd
            return s, r, n, True
        s = s_try
        r = r - a * Hd
        rr_new = _dot(r, r)
        d = (rr_new / rr) * d + r
        rr = rr_new
    return s, r, n, False


def tron(obj, n_features: int, eps: float, max_iter: int, trace: list | None = None) -> TronResult:
    """Minimise ``obj`` (``fun(w)``, ``grad(w)``, ``hess_vec(v)`` at the last ``grad``'s w);
    ``trace`` receives ``(iteration, actred, prered, delta, f, |g|, CG steps)`` per trial step."""
    w = np.zeros(n_features)
    f = obj.fun(w)
    g = obj.grad(w)
    gnorm0 = gnorm = _nrm2(g)
    delta = gnorm0
    it, n_cg = 1, 0
    converged = gnorm <= eps * gnorm0
    while it <= max_iter and not converged:
        s, r, k, boundary = _cg_step(obj, g, delta)
        n_cg += k
        w_new = w + s
        gs = _dot(g, s)
        prered = -0.5 * (gs - _dot(s, r))
        f_new = obj.fun(w_new)
        actred = f - f_new
        snorm = _nrm2(s)
        if it == 1:
            delta = min(delta, snorm)
        curv = f_new - f - gs
        alpha = SIGMA3 if curv <= 0 else max(SIGMA1, -0.5 * (gs / curv))
        if actred < ETA0 * prered:
            delta = min(max(alpha, SIGMA1) * snorm, SIGMA2 * delta)
        elif actred < ETA1 * prered:
            delta = max(SIGMA1 * delta, min(alpha * snorm, SIGMA2 * delta))
        elif actred < ETA2 * prered:
            delta = max(SIGMA1 * delta, min(alpha * snorm, SIGMA3 * delta))
        elif boundary:
            delta = SIGMA3 * delta
        else:
            delta = max(delta, min(alpha * snorm, SIGMA3 * delta))
        if trace is not None:
            trace.append((it, actred, prered, delta, f, gnorm, k))
        if actred > ETA0 * prered:
            it += 1
            w, f = w_new, f_new
            g = obj.grad(w)
            gnorm = _nrm2(g)
            if gnorm <= eps * gnorm0:
                converged = True
                break
        if f < -1.0e32 or prered <= 0:
            break
        if abs(actred) <= 1.0e-12 * abs(f) and abs(prered) <= 1.0e-12 * abs(f):
            break
    return TronResult(w, f, gnorm, gnorm0, it - 1, n_cg, converged)
