"""The study: per-query tables and their aggregation (``tables``), statistics (``stats``), seeds
(``seeds``), tie ranges (``tie_ranges``), winning numbers (``winning``), implementation variants
(``variants``), the audit's predictions (``audit_predictions``), today's libraries
(``libraries``, figure in ``library_figures``), figures (``figures``), report pages
(``report_pages``) and the paper's claims (``paper``). Import the module you need:
this package loads nothing by itself (pandas, SciPy and matplotlib load with the modules)."""
