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


def _cg_step(obj, g: np.ndarray, delta: float) -> tuple[np.ndarray, np.ndarray, int, bool]:
    """Approximate Newton step s within |s| <= delta, the residual r = -g - H s, the CG steps
    and whether s stopped on the boundary."""
    s = np.zeros_like(g)
    r = -g
    d = r.copy()
    tol = CG_TOL * math.sqrt(float(g @ g))
    rr = float(r @ r)
    n = 0
    while math.sqrt(rr) > tol:
        n += 1
        Hd = obj.hess_vec(d)
        a = rr / float(d @ Hd)
        s_try = s + a * d
        if math.sqrt(float(s_try @ s_try)) > delta:
            s = s_try - a * d  # liblinear steps back from s_try, with that rounding
            # the root tau >= 0 of |s + tau d| = delta, in the form that avoids cancellation
            sd, ss, dd = float(s @ d), float(s @ s), float(d @ d)
            gap = delta * delta - ss
            rad = math.sqrt(sd * sd + dd * gap)
            tau = gap / (sd + rad) if sd >= 0 else (rad - sd) / dd
            s = s + tau * d
            r = r - tau * Hd
            return s, r, n, True
        s = s_try
        r = r - a * Hd
        rr_new = float(r @ r)
        d = r + (rr_new / rr) * d
        rr = rr_new
    return s, r, n, False


def tron(obj, n_features: int, eps: float, max_iter: int, trace: list | None = None) -> TronResult:
    """Minimise ``obj`` (``fun(w)``, ``grad(w)``, ``hess_vec(v)`` at the last ``grad``'s w);
    ``trace`` receives ``(iteration, actred, prered, delta, f, |g|, CG steps)`` per trial step."""
    w = np.zeros(n_features)
    f = obj.fun(w)
    g = obj.grad(w)
    gnorm0 = gnorm = math.sqrt(float(g @ g))
    delta = gnorm0
    it, n_cg = 1, 0
    converged = gnorm <= eps * gnorm0
    while it <= max_iter and not converged:
        s, r, k, boundary = _cg_step(obj, g, delta)
        n_cg += k
        w_new = w + s
        gs = float(g @ s)
        prered = -0.5 * (gs - float(s @ r))
        f_new = obj.fun(w_new)
        actred = f - f_new
        snorm = math.sqrt(float(s @ s))
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
            gnorm = math.sqrt(float(g @ g))
            if gnorm <= eps * gnorm0:
                converged = True
                break
        if f < -1.0e32 or prered <= 0:
            break
        if abs(actred) <= 1.0e-12 * abs(f) and abs(prered) <= 1.0e-12 * abs(f):
            break
    return TronResult(w, f, gnorm, gnorm0, it - 1, n_cg, converged)
