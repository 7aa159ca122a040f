"""Shared timing loop for the peer scripts: operations per second of a function."""
import time


def rate(function, seconds):
    """Calls `function` repeatedly for about `seconds` after one warm-up call; returns calls per second."""
    function()
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(200):
            function()
        count += 200
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start)
