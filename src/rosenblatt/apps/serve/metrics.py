"""The service's counters, as ``GET /metrics`` gives them (Prometheus' text format 0.0.4).

Requests by endpoint and status, rows predicted and learnt, the model's updates (learn
requests learnt) and version, the writer's queue, the recent predictions kept, and a
histogram of the time each request took from its arrival to its answer.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from typing import Any

__all__ = ["BUCKETS", "Metrics"]

#: The latency histogram's upper bounds, in seconds
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """Counters the service's requests add to (from its event loop only: no lock).

    Examples
    --------
    >>> metrics = Metrics()
    >>> metrics.answered("/predict", 200, 0.002, rows=3)
    >>> print(metrics.text({"model_version": 7}).splitlines()[2])
    rosenblatt_requests_total{endpoint="/predict",status="200"} 1
    """

    def __init__(self) -> None:
        self.requests: dict[tuple[str, int], int] = defaultdict(int)
        self.rows: dict[str, int] = defaultdict(int)
        self.latency: dict[str, list[int]] = {}
        self.latency_sum: dict[str, float] = defaultdict(float)

    def answered(self, endpoint: str, status: int, seconds: float, rows: int = 0) -> None:
        """Count a request answered with ``status`` after ``seconds`` (``rows`` predicted)."""
        self.requests[endpoint, status] += 1
        if rows:
            self.rows[endpoint] += rows
        counts = self.latency.get(endpoint)
        if counts is None:
            counts = self.latency[endpoint] = [0] * (len(BUCKETS) + 1)
        counts[bisect.bisect_left(BUCKETS, seconds)] += 1
        self.latency_sum[endpoint] += seconds

    def text(self, gauges: dict[str, Any]) -> str:
        """The exposition: the counters, then ``gauges`` (name without the prefix ->
        value; ``(help, type, value)`` where the defaults do not fit)."""
        lines = [
            "# HELP rosenblatt_requests_total Requests answered, by endpoint and HTTP status.",
            "# TYPE rosenblatt_requests_total counter",
        ]
        for (endpoint, status), count in sorted(self.requests.items()):
            lines.append(
                f'rosenblatt_requests_total{{endpoint="{endpoint}",status="{status}"}} {count}'
            )
        lines += [
            "# HELP rosenblatt_rows_total Rows predicted (/predict) and given to learn (/learn).",
            "# TYPE rosenblatt_rows_total counter",
        ]
        for endpoint, count in sorted(self.rows.items()):
            lines.append(f'rosenblatt_rows_total{{endpoint="{endpoint}"}} {count}')
        lines += [
            "# HELP rosenblatt_request_seconds Time from a request's arrival to its answer.",
            "# TYPE rosenblatt_request_seconds histogram",
        ]
        for endpoint, counts in sorted(self.latency.items()):
            total = 0
            for bound, count in zip((*BUCKETS, "+Inf"), counts):
                total += count
                lines.append(
                    f'rosenblatt_request_seconds_bucket{{endpoint="{endpoint}",le="{bound}"}} '
                    f"{total}"
                )
            lines.append(
                f'rosenblatt_request_seconds_sum{{endpoint="{endpoint}"}} '
                f"{self.latency_sum[endpoint]:.6f}"
            )
            lines.append(f'rosenblatt_request_seconds_count{{endpoint="{endpoint}"}} {total}')
        for name, value in gauges.items():
            help_, kind, value = (
                value if isinstance(value, tuple) else (_HELP[name], "gauge", value)
            )
            lines += [
                f"# HELP rosenblatt_{name} {help_}",
                f"# TYPE rosenblatt_{name} {kind}",
                f"rosenblatt_{name} {value}",
            ]
        return "\n".join(lines) + "\n"


_HELP = {
    "model_version": "Learn requests the served model has learnt (its version).",
}
