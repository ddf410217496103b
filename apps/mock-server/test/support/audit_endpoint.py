"""A merchant's callback endpoint in Python 3 (http.server + the `cryptography` package), for the
audit's tests: correct, or with one flaw planted the way people write it by mistake.

Usage: python3 audit_endpoint.py MOCK_URL APP_KEY FLAW   (prints the port it listens on)
"""
import base64
import json
import sys
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

MOCK_URL, APP_KEY, FLAW = sys.argv[1], sys.argv[2], sys.argv[3]
listed = json.load(urllib.request.urlopen(MOCK_URL + "/dev/platform-keys"))["data"]
KEYS = {k["version"]: serialization.load_pem_public_key(k["publicKeyPem"].encode()) for k in listed if k["status"] != "retired"}
processed = set()
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, text):
        data = text.encode()
        self.send_response(status)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length", "0")))
        ts = self.headers.get("X-R-Ts")
        signature = self.headers.get("X-R-Signature")
        version = self.headers.get("X-R-Key-Version")
        if ts is None or signature is None or version is None:
            return self.answer(401, "missing header")
        if FLAW != "no-window" and abs(time.time() * 1000 - int(ts)) > 300_000:
            return self.answer(401, "outside window")
        key = KEYS.get(int(version)) if version.isdigit() else None
        if key is None:
            return self.answer(401, "unknown key version")
        if FLAW == "plus-as-space":
            # The header read as a form value: "+" becomes a space.
            signature = urllib.parse.unquote_plus(signature)
        body = raw
        if FLAW == "reserialised-body":
            body = json.dumps(json.loads(raw), separators=(",", ":")).encode()
        try:
            key.verify(base64.b64decode(signature, validate=True), APP_KEY.encode() + b"." + ts.encode() + b"." + body,
                       padding.PKCS1v15(), hashes.SHA256())
        except (InvalidSignature, ValueError):
            return self.answer(401, "bad signature")
        event = json.loads(raw)
        with lock:
            replay = (ts, signature) in processed
            processed.add((ts, signature))
            processed.add(event["eventId"])
        if replay:
            return self.answer(409, "replayed")
        return self.answer(200, "ok")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
