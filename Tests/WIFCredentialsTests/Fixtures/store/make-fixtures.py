#!/usr/bin/env python3
"""Writes version-1 encrypted stores from the documented format alone (hashlib's scrypt, the
cryptography package's HKDF, HMAC and AES-GCM), with fixed salts and nonces, so the Swift tests check
that EncryptedStore reads files it did not write itself and that the format never drifts."""
import base64, hashlib, hmac, json, os, struct, unicodedata
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

HERE = os.path.dirname(os.path.abspath(__file__))
PASSPHRASE = "fixture passphrase \u00e9"
KEY = bytes(range(32))


def document():
    def item(value):
        return base64.b64encode(json.dumps(value, separators=(",", ":"), sort_keys=True).encode()).decode()
    credentials = {
        "accessKeyId": "ASIAFIXTURE000000001",
        "secretAccessKey": "fixture-secret-access-key",
        "sessionToken": "fixture-session-token",
        "expiration": 1_900_000_000 - 978_307_200,  # seconds since 2001-01-01
    }
    items = {"note": item("written by make-fixtures.py"), "sts.cache": item(credentials)}
    return json.dumps({"formatVersion": 1, "items": items}, separators=(",", ":"), sort_keys=True).encode()


def store(kdf, params, master, salt, nonce, plaintext):
    keys = HKDF(algorithm=hashes.SHA256(), length=64, salt=salt, info=b"WIFSTORE v1 keys").derive(master)
    check = hmac.new(keys[32:], b"WIFSTORE key check", hashlib.sha256).digest()
    header = b"WIFSTORE" + struct.pack(">HB3BB", 1, kdf, *params, len(salt)) + salt + check + nonce
    header += struct.pack(">Q", len(plaintext))
    sealed = AESGCM(keys[:32]).encrypt(nonce, plaintext, header)  # ciphertext followed by the tag
    return header + sealed


salt = bytes(range(100, 132))
master = hashlib.scrypt(unicodedata.normalize("NFC", PASSPHRASE).encode(), salt=salt, n=1 << 10, r=8, p=1, dklen=32)
with open(os.path.join(HERE, "v1-passphrase.enc"), "wb") as f:
    f.write(store(1, (10, 8, 1), master, salt, bytes(range(12)), document()))
with open(os.path.join(HERE, "v1-keyfile.enc"), "wb") as f:
    f.write(store(2, (0, 0, 0), KEY, bytes(range(200, 216)), bytes(range(50, 62)), document()))
with open(os.path.join(HERE, "v1.key"), "w") as f:
    f.write(base64.b64encode(KEY).decode() + "\n")
