"""Published results the study checks, one module per paper.

:mod:`ltrconv.study.paper.busa_fekete_2012`: the claims of Busa-Fekete, Szarvas, Éltető & Kégl (2012),
"An apple-to-apple comparison of learning-to-rank algorithms in terms of NDCG".
"""
