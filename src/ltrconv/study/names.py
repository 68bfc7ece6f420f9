"""The conventions the study's tables single out, by name, apart from the modules that compute
with them (pandas, numba): the workflow's plan reads them without loading those.

- :data:`REFERENCE`: the official NDCG the paper's claims are set against (Busa-Fekete et al.
  2012, Sec. 5: RankLib's and trec_eval's follow the definition).
- :data:`TIE_ORDERS`: the ties study's RankLib NDCG with tied scores ordered worst label first,
  averaged over every order, best label first, and as the input lists them.
"""

REFERENCE = "ranklib"

PESS, AVG, OPT, INPUT = "ranklib-tiepess", "ranklib-tieavg", "ranklib-tieopt", "ranklib"
TIE_ORDERS = (PESS, AVG, OPT, INPUT)
