# The JSON-lines loop of tirproof's peer workers, put before each worker's own source: the
# worker reads one JSON request per line on stdin and answers one JSON line on stdout, so its
# peer is imported once per process, not once per program.
#
# A worker defines `answer(request) -> dict` and ends with `serve(answer)`; the loop copies the
# request's "id" into the answer. stdout carries nothing else: the peer's own prints go to
# stderr from here on.
import json
import sys

protocol_out = sys.stdout
sys.stdout = sys.stderr


def serve(answer):
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        response = answer(request)
        response["id"] = request.get("id")
        protocol_out.write(json.dumps(response) + "\n")
        protocol_out.flush()
