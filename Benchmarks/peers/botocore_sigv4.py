#!/usr/bin/env python3
"""Signs the same requests as Benchmarks/SigningBenchmarks with botocore and prints signatures/second.

Output: one JSON object {"S3 GetObject header signing": ops_per_second, ...} on stdout.
"""
import json
import sys

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from peer_timing import rate

CREDENTIALS = Credentials(
    "ASIAQEXAMPLEEXAMPLE1",
    "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKENEXAMPLESESSIONTOKENEXAMPLESESSIONTOKEN",
)
S3_URL = "https://wif-personal.s3.us-east-1.amazonaws.com/facebook/1234567890/photos/2026/holiday%20picture.jpg"
FORM = (
    "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fpersonal-store"
    "&RoleSessionName=bench-session&DurationSeconds=3600"
)


def s3_header():
    request = AWSRequest(method="GET", url=S3_URL)
    botocore.auth.S3SigV4Auth(CREDENTIALS, "s3", "us-east-1").add_auth(request)
    return request


def s3_presign():
    request = AWSRequest(method="GET", url=S3_URL)
    botocore.auth.S3SigV4QueryAuth(CREDENTIALS, "s3", "us-east-1", expires=3600).add_auth(request)
    return request.url


def sts_form():
    request = AWSRequest(
        method="POST",
        url="https://sts.us-east-1.amazonaws.com/",
        data=FORM,
        headers={"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
    )
    botocore.auth.SigV4Auth(CREDENTIALS, "sts", "us-east-1").add_auth(request)
    return request


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    # botocore reads the wall clock itself; it is left unpatched so no mock overhead slows the peer.
    result = {
        "S3 GetObject header signing": rate(s3_header, seconds),
        "S3 GetObject presigning": rate(s3_presign, seconds),
        "STS form signing": rate(sts_form, seconds),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
