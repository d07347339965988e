"""Offline evaluation, apart from what serves requests: BEIR-format sets (``beir``), a set
loaded into a throw-away instance (``workbench``), the two fits of ``strata calibrate``
(``ranking_fit`` for the learned fusion, ``calibrate`` for ``answer_confidence``, on the
numerics of ``fitting``) and the verdict's metrics (``verdict``)."""
