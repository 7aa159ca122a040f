"""Drives a running local stack with boto3, as a third-party client would: for every provider, alice and
bob federate with AssumeRoleWithWebIdentity, then use S3 with their temporary credentials (put, list, get,
head, delete, a multipart upload, a presigned URL) and try each other's folders.

Input: WIF_ENDPOINT, and WIF_GRANTS, a JSON object {provider: {user: {token, providerId, roleArn, bucket,
prefix}}}. Output: one JSON object of observations on stdout; the Swift test asserts on them. Exit 2 on
a setup failure (boto3 missing, a bad input)."""
import hashlib
import io
import json
import os
import sys
import urllib.error
import urllib.request

try:
    import boto3
    from boto3.s3.transfer import TransferConfig
    from botocore.config import Config
    from botocore.exceptions import ClientError
except ImportError as error:
    print(f"boto3 is missing: {error}", file=sys.stderr)
    sys.exit(2)

ENDPOINT = os.environ["WIF_ENDPOINT"]
GRANTS = json.loads(os.environ["WIF_GRANTS"])
# SigV4 throughout: botocore presigns S3 URLs with SigV2 unless told otherwise, and the stack, like S3 in
# every region opened since 2014, accepts only SigV4.
CONFIG = Config(region_name="us-east-1", signature_version="s3v4", retries={"max_attempts": 1},
                s3={"addressing_style": "path"})


def code(call):
    """The S3/STS error code of a call, or "OK"."""
    try:
        call()
        return "OK"
    except ClientError as error:
        return error.response["Error"]["Code"]


def session_for(grant):
    sts = boto3.client("sts", endpoint_url=ENDPOINT, config=CONFIG,
                       aws_access_key_id="unused", aws_secret_access_key="unused")
    arguments = {"RoleArn": grant["roleArn"], "RoleSessionName": "boto3-test", "WebIdentityToken": grant["token"],
                 "DurationSeconds": 900}
    if grant.get("providerId"):
        arguments["ProviderId"] = grant["providerId"]
    answer = sts.assume_role_with_web_identity(**arguments)
    credentials = answer["Credentials"]
    s3 = boto3.client("s3", endpoint_url=ENDPOINT, config=CONFIG,
                      aws_access_key_id=credentials["AccessKeyId"],
                      aws_secret_access_key=credentials["SecretAccessKey"],
                      aws_session_token=credentials["SessionToken"])
    caller_sts = boto3.client("sts", endpoint_url=ENDPOINT, config=CONFIG,
                              aws_access_key_id=credentials["AccessKeyId"],
                              aws_secret_access_key=credentials["SecretAccessKey"],
                              aws_session_token=credentials["SessionToken"])
    return answer, s3, caller_sts


def observe(provider, grants):
    alice, bob = grants["alice"], grants["bob"]
    result = {}
    answer, s3, caller = session_for(alice)
    result["accessKeyPrefix"] = answer["Credentials"]["AccessKeyId"][:4]
    result["subject"] = answer.get("SubjectFromWebIdentityToken")
    result["assumedRoleArn"] = answer["AssumedRoleUser"]["Arn"]
    result["callerArn"] = caller.get_caller_identity()["Arn"]
    _, bob_s3, _ = session_for(bob)
    bucket, mine, theirs = alice["bucket"], alice["prefix"], bob["prefix"]

    body = b"hello from alice via boto3\n"
    s3.put_object(Bucket=bucket, Key=mine + "notes/hello.txt", Body=body, ContentType="text/plain",
                  Metadata={"origin": "boto3"})
    got = s3.get_object(Bucket=bucket, Key=mine + "notes/hello.txt")
    result["getEqual"] = got["Body"].read() == body
    result["getMetadata"] = got["Metadata"].get("origin")
    result["getContentType"] = got["ContentType"]
    ranged = s3.get_object(Bucket=bucket, Key=mine + "notes/hello.txt", Range="bytes=0-4")
    result["range"] = ranged["Body"].read().decode()
    listing = s3.list_objects_v2(Bucket=bucket, Prefix=mine, Delimiter="/")
    result["listPrefixes"] = [entry["Prefix"] for entry in listing.get("CommonPrefixes", [])]
    listing = s3.list_objects_v2(Bucket=bucket, Prefix=mine + "notes/")
    result["listKeys"] = [entry["Key"] for entry in listing.get("Contents", [])]

    big = os.urandom(12 * 1024 * 1024 + 123)
    s3.upload_fileobj(io.BytesIO(big), bucket, mine + "big.bin",
                      Config=TransferConfig(multipart_threshold=5 * 1024 * 1024, multipart_chunksize=5 * 1024 * 1024))
    head = s3.head_object(Bucket=bucket, Key=mine + "big.bin")
    result["multipartETagSuffix"] = head["ETag"].strip('"').split("-")[-1] if "-" in head["ETag"] else None
    downloaded = io.BytesIO()
    s3.download_fileobj(bucket, mine + "big.bin", downloaded)
    result["multipartEqual"] = hashlib.sha256(downloaded.getvalue()).digest() == hashlib.sha256(big).digest()

    url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": mine + "notes/hello.txt"},
                                    ExpiresIn=300)
    result["presigned"] = urllib.request.urlopen(url, timeout=10).read() == body
    try:
        urllib.request.urlopen(url.replace("hello.txt", "hellO.txt"), timeout=10)
        result["presignedTampered"] = 200
    except urllib.error.HTTPError as error:
        result["presignedTampered"] = error.code

    bob_s3.put_object(Bucket=bucket, Key=theirs + "secret.txt", Body=b"bob's secret")
    result["crossGet"] = code(lambda: s3.get_object(Bucket=bucket, Key=theirs + "secret.txt"))
    result["crossHead"] = code(lambda: s3.head_object(Bucket=bucket, Key=theirs + "secret.txt"))
    result["crossPut"] = code(lambda: s3.put_object(Bucket=bucket, Key=theirs + "planted.txt", Body=b"x"))
    result["crossDelete"] = code(lambda: s3.delete_object(Bucket=bucket, Key=theirs + "secret.txt"))
    result["crossList"] = code(lambda: s3.list_objects_v2(Bucket=bucket, Prefix=theirs))
    result["rootList"] = code(lambda: s3.list_objects_v2(Bucket=bucket))
    result["bobStillHasSecret"] = bob_s3.get_object(Bucket=bucket, Key=theirs + "secret.txt")["Body"].read() == b"bob's secret"

    deleted = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": mine + "notes/hello.txt"},
                                                                    {"Key": mine + "big.bin"}]})
    result["deleted"] = sorted(entry["Key"][len(mine):] for entry in deleted.get("Deleted", []))
    result["afterDelete"] = code(lambda: s3.get_object(Bucket=bucket, Key=mine + "notes/hello.txt"))
    return result


def main():
    observations = {provider: observe(provider, grants) for provider, grants in GRANTS.items()}
    json.dump(observations, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
