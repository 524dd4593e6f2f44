"""``manage.py rules_vectors``: golden vectors from the rules engine for its JavaScript port."""

from __future__ import annotations

import json
import sys
import time

from django.core.management.base import BaseCommand

from scoring.rules import vectors


class Command(BaseCommand):
    help = (
        "Write random series scored by the Python rules engine (every preset, house rule and "
        "mode, invalid deals with their refusals) as JSON lines, for tests/js/rules.test.mjs to "
        "replay with static/js/kozel-rules.js. The same seed writes the same lines."
    )

    def add_arguments(self, parser):
        parser.add_argument("--count", type=int, default=3000, help="how many series (3000)")
        parser.add_argument("--seed", type=int, default=15, help="the random seed (15)")
        parser.add_argument(
            "--output", default="-", metavar="PATH", help="the file to write (- for stdout)"
        )

    def handle(self, *args, count, seed, output, **options):
        started = time.perf_counter()
        series = steps = 0
        stream = sys.stdout if output == "-" else open(output, "w", encoding="utf-8")  # noqa: SIM115
        try:
            for line in vectors.generate(count, seed):
                if line["kind"] == "series":
                    series += 1
                    steps += len(line["steps"])
                stream.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        finally:
            if stream is not sys.stdout:
                stream.close()
        elapsed = time.perf_counter() - started
        self.stderr.write(
            f"rules_vectors: {series} series, {steps} deals entered, seed {seed}, "
            f"in {elapsed:.1f} s -> {output}"
        )
