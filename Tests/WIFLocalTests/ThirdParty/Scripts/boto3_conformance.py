"""Checks, with boto3, answers in which the local stack once differed from S3: listing past a common
prefix, completing a multipart upload again or conditionally (and its part-number and object-size
rules), reading one part, copy ranges, presigned URLs that expire at
once, Content-Encoding, paged bucket listings, conditional deletes, canned ACLs, server-side encryption,
browser form uploads, `Expect: 100-continue` answered only after the request is authenticated, and
metadata in RFC 2047 encoded-words.

Input: WIF_ENDPOINT, WIF_ACCESS_KEY and WIF_SECRET_KEY (the stack's administrator), WIF_BUCKET (an
empty bucket). Output: one JSON object of observations on stdout; the Swift test asserts on them. Exit 2
on a setup failure (boto3 missing)."""
import base64
import hashlib
import io
import json
import logging
import os
import zlib
import sys
import urllib.error
import urllib.request
import uuid

try:
    import boto3
    from botocore.config import Config
    from botocore.exceptions import ClientError
    import urllib3
except ImportError as error:
    print(f"boto3 is missing: {error}", file=sys.stderr)
    sys.exit(2)

ENDPOINT = os.environ["WIF_ENDPOINT"]
BUCKET = os.environ["WIF_BUCKET"]
CONFIG = Config(region_name="us-east-1", signature_version="s3v4", retries={"max_attempts": 1},
                s3={"addressing_style": "path"})
S3 = boto3.client("s3", endpoint_url=ENDPOINT, config=CONFIG,
                  aws_access_key_id=os.environ["WIF_ACCESS_KEY"],
                  aws_secret_access_key=os.environ["WIF_SECRET_KEY"])
MIB = 1024 * 1024


def code(call):
    """The S3 error code of a call, or "OK"."""
    try:
        call()
        return "OK"
    except ClientError as error:
        return error.response["Error"]["Code"]


def status_of(request):
    """The HTTP status of a urllib request."""
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def listing_past_common_prefix(seen):
    for key in ["boo/bar", "boo/baz/xyzzy", "cquux/thud", "cquux/bla"]:
        S3.put_object(Bucket=BUCKET, Key=key, Body=b"x")
    prefixes, marker, pages = [], "boo/", 0
    while pages < 6:
        page = S3.list_objects(Bucket=BUCKET, Delimiter="/", MaxKeys=1, Marker=marker)
        pages += 1
        prefixes += [entry["Prefix"] for entry in page.get("CommonPrefixes", [])]
        if not page.get("IsTruncated") or page.get("NextMarker") in (None, marker):
            break
        marker = page["NextMarker"]
    seen["listV1PastPrefix"] = prefixes
    seen["listV1Pages"] = pages
    paginated = []
    for page in S3.get_paginator("list_objects").paginate(Bucket=BUCKET, Delimiter="/", PaginationConfig={"PageSize": 1}):
        paginated += [entry["Prefix"] for entry in page.get("CommonPrefixes", [])]
        if len(paginated) > 10:
            break
    seen["listV1Paginated"] = paginated


def multipart(key):
    upload = S3.create_multipart_upload(Bucket=BUCKET, Key=key)["UploadId"]
    parts = []
    for number, size in [(1, 5 * MIB), (2, 1024)]:
        answer = S3.upload_part(Bucket=BUCKET, Key=key, UploadId=upload, PartNumber=number, Body=bytes([number]) * size)
        parts.append({"PartNumber": number, "ETag": answer["ETag"]})
    return upload, {"Parts": parts}


def completing_again(seen):
    upload, parts = multipart("retried.bin")
    first = S3.complete_multipart_upload(Bucket=BUCKET, Key="retried.bin", UploadId=upload, MultipartUpload=parts)
    try:
        again = S3.complete_multipart_upload(Bucket=BUCKET, Key="retried.bin", UploadId=upload, MultipartUpload=parts)
        seen["completeAgain"] = "same" if again["ETag"] == first["ETag"] else "different"
    except ClientError as error:
        seen["completeAgain"] = error.response["Error"]["Code"]
    S3.put_object(Bucket=BUCKET, Key="exists.bin", Body=b"keep me")
    upload, parts = multipart("exists.bin")
    seen["completeIfNoneMatch"] = code(lambda: S3.complete_multipart_upload(
        Bucket=BUCKET, Key="exists.bin", UploadId=upload, MultipartUpload=parts, IfNoneMatch="*"))
    seen["existingKept"] = S3.get_object(Bucket=BUCKET, Key="exists.bin")["Body"].read() == b"keep me"
    S3.abort_multipart_upload(Bucket=BUCKET, Key="exists.bin", UploadId=upload)


def completion_rules(seen):
    """Parts with a per-part checksum numbered with a gap, and MpuObjectSize (x-amz-mp-object-size)."""
    upload = S3.create_multipart_upload(Bucket=BUCKET, Key="gap.bin", ChecksumAlgorithm="SHA256")["UploadId"]
    parts = []
    for number in [1, 3]:
        answer = S3.upload_part(Bucket=BUCKET, Key="gap.bin", UploadId=upload, PartNumber=number, Body=bytes([number]) * (5 * MIB),
                                ChecksumAlgorithm="SHA256")
        parts.append({"PartNumber": number, "ETag": answer["ETag"], "ChecksumSHA256": answer["ChecksumSHA256"]})
    seen["checksumPartsWithGap"] = code(lambda: S3.complete_multipart_upload(
        Bucket=BUCKET, Key="gap.bin", UploadId=upload, MultipartUpload={"Parts": parts}))
    S3.abort_multipart_upload(Bucket=BUCKET, Key="gap.bin", UploadId=upload)
    upload, parts = multipart("sized.bin")
    seen["wrongObjectSize"] = code(lambda: S3.complete_multipart_upload(
        Bucket=BUCKET, Key="sized.bin", UploadId=upload, MultipartUpload=parts, MpuObjectSize=5 * MIB))
    seen["rightObjectSize"] = code(lambda: S3.complete_multipart_upload(
        Bucket=BUCKET, Key="sized.bin", UploadId=upload, MultipartUpload=parts, MpuObjectSize=5 * MIB + 1024))


def part_reads(seen):
    upload, parts = multipart("parts.bin")
    S3.complete_multipart_upload(Bucket=BUCKET, Key="parts.bin", UploadId=upload, MultipartUpload=parts)
    second = S3.get_object(Bucket=BUCKET, Key="parts.bin", PartNumber=2)
    seen["partRead"] = [second["ResponseMetadata"]["HTTPStatusCode"], second["PartsCount"], second["ContentRange"],
                        "same" if second["Body"].read() == bytes([2]) * 1024 else "different"]
    seen["partHeadLength"] = S3.head_object(Bucket=BUCKET, Key="parts.bin", PartNumber=1)["ContentLength"]
    seen["partBeyond"] = code(lambda: S3.get_object(Bucket=BUCKET, Key="parts.bin", PartNumber=3))
    seen["wholeHasNoPartsCount"] = "PartsCount" not in S3.head_object(Bucket=BUCKET, Key="parts.bin")


def copy_range(seen):
    S3.put_object(Bucket=BUCKET, Key="source.bin", Body=bytes(100))
    upload = S3.create_multipart_upload(Bucket=BUCKET, Key="copied.bin")["UploadId"]
    seen["copyRangeBeyond"] = code(lambda: S3.upload_part_copy(
        Bucket=BUCKET, Key="copied.bin", UploadId=upload, PartNumber=1,
        CopySource={"Bucket": BUCKET, "Key": "source.bin"}, CopySourceRange="bytes=50-150"))
    seen["copyRangeInside"] = code(lambda: S3.upload_part_copy(
        Bucket=BUCKET, Key="copied.bin", UploadId=upload, PartNumber=1,
        CopySource={"Bucket": BUCKET, "Key": "source.bin"}, CopySourceRange="bytes=0-99"))
    S3.abort_multipart_upload(Bucket=BUCKET, Key="copied.bin", UploadId=upload)


def presigned_zero(seen):
    url = S3.generate_presigned_url("get_object", Params={"Bucket": BUCKET, "Key": "source.bin"}, ExpiresIn=0)
    seen["presignedZero"] = status_of(urllib.request.Request(url))
    url = S3.generate_presigned_url("get_object", Params={"Bucket": BUCKET, "Key": "source.bin"}, ExpiresIn=60)
    seen["presignedMinute"] = status_of(urllib.request.Request(url))


def content_encoding(seen):
    S3.put_object(Bucket=BUCKET, Key="encoded.bin", Body=b"x", ContentEncoding="deflate, gzip")
    seen["contentEncoding"] = S3.head_object(Bucket=BUCKET, Key="encoded.bin").get("ContentEncoding")


def bucket_pages(seen):
    prefix = "conformance-" + uuid.uuid4().hex[:8]
    names = [f"{prefix}-{index}" for index in range(3)]
    for name in names:
        S3.create_bucket(Bucket=name)
    found, token, pages = [], None, 0
    while pages < 10:
        arguments = {"MaxBuckets": 1, "Prefix": prefix}
        if token:
            arguments["ContinuationToken"] = token
        page = S3.list_buckets(**arguments)
        pages += 1
        found += [bucket["Name"] for bucket in page["Buckets"]]
        token = page.get("ContinuationToken")
        if not token:
            break
    seen["bucketPages"] = pages
    seen["bucketNames"] = found == names
    for name in names:
        S3.delete_bucket(Bucket=name)


def conditional_deletes(seen):
    etag = S3.put_object(Bucket=BUCKET, Key="guarded.txt", Body=b"1")["ETag"]
    seen["deleteIfMatchWrong"] = code(lambda: S3.delete_object(Bucket=BUCKET, Key="guarded.txt", IfMatch='"0000"'))
    seen["deleteIfMatchRight"] = code(lambda: S3.delete_object(Bucket=BUCKET, Key="guarded.txt", IfMatch=etag))
    first = S3.put_object(Bucket=BUCKET, Key="batch/1", Body=b"1")["ETag"]
    S3.put_object(Bucket=BUCKET, Key="batch/2", Body=b"2")
    answer = S3.delete_objects(Bucket=BUCKET, Delete={"Objects": [
        {"Key": "batch/1", "ETag": first}, {"Key": "batch/2", "ETag": '"ffff"'}]})
    seen["batchDeleted"] = [entry["Key"] for entry in answer.get("Deleted", [])]
    seen["batchErrors"] = [entry["Code"] for entry in answer.get("Errors", [])]


def acls_and_encryption(seen):
    seen["aclPrivate"] = code(lambda: S3.put_object(Bucket=BUCKET, Key="acl.txt", Body=b"1", ACL="private"))
    seen["aclPublicRead"] = code(lambda: S3.put_object(Bucket=BUCKET, Key="acl.txt", Body=b"1", ACL="public-read"))
    seen["sseKMS"] = code(lambda: S3.put_object(Bucket=BUCKET, Key="sse.txt", Body=b"1", ServerSideEncryption="aws:kms"))
    seen["sseStored"] = code(lambda: S3.head_object(Bucket=BUCKET, Key="sse.txt"))
    put = S3.put_object(Bucket=BUCKET, Key="sse-s3.txt", Body=b"secret", ServerSideEncryption="AES256")
    got = S3.get_object(Bucket=BUCKET, Key="sse-s3.txt")
    seen["sseS3"] = [put.get("ServerSideEncryption"), got.get("ServerSideEncryption"), got["Body"].read().decode()]
    key = "k" * 32
    S3.put_object(Bucket=BUCKET, Key="sse-c.txt", Body=b"customer", SSECustomerAlgorithm="AES256", SSECustomerKey=key)
    seen["sseCWithoutKey"] = code(lambda: S3.get_object(Bucket=BUCKET, Key="sse-c.txt"))
    seen["sseCWrongKey"] = code(lambda: S3.get_object(
        Bucket=BUCKET, Key="sse-c.txt", SSECustomerAlgorithm="AES256", SSECustomerKey="x" * 32))
    seen["sseCWithKey"] = S3.get_object(
        Bucket=BUCKET, Key="sse-c.txt", SSECustomerAlgorithm="AES256", SSECustomerKey=key)["Body"].read().decode()


def checksums(seen):
    body = os.urandom(1000)
    crc32 = base64.b64encode(zlib.crc32(body).to_bytes(4, "big")).decode()
    S3.put_object(Bucket=BUCKET, Key="summed.bin", Body=body, ChecksumAlgorithm="CRC32")
    head = S3.head_object(Bucket=BUCKET, Key="summed.bin", ChecksumMode="ENABLED")
    seen["putCRC32"] = head.get("ChecksumCRC32") == crc32
    seen["putCRC32Type"] = head.get("ChecksumType")
    sha = base64.b64encode(hashlib.sha256(body).digest()).decode()
    S3.put_object(Bucket=BUCKET, Key="summed.bin", Body=body, ChecksumSHA256=sha)
    got = S3.get_object(Bucket=BUCKET, Key="summed.bin", ChecksumMode="ENABLED")
    got["Body"].read()
    seen["getSHA256"] = got.get("ChecksumSHA256") == sha
    seen["headWithoutMode"] = "ChecksumSHA256" in S3.head_object(Bucket=BUCKET, Key="summed.bin")
    parts_data = [os.urandom(5 * MIB), os.urandom(1000)]
    for kind in ["COMPOSITE", "FULL_OBJECT"]:
        key = f"summed-{kind}.bin"
        upload = S3.create_multipart_upload(Bucket=BUCKET, Key=key, ChecksumAlgorithm="CRC32", ChecksumType=kind)["UploadId"]
        parts = []
        for number, data in enumerate(parts_data, start=1):
            answer = S3.upload_part(Bucket=BUCKET, Key=key, UploadId=upload, PartNumber=number, Body=data,
                                    ChecksumAlgorithm="CRC32")
            parts.append({"PartNumber": number, "ETag": answer["ETag"], "ChecksumCRC32": answer["ChecksumCRC32"]})
        done = S3.complete_multipart_upload(Bucket=BUCKET, Key=key, UploadId=upload, MultipartUpload={"Parts": parts},
                                            ChecksumType=kind)
        head = S3.head_object(Bucket=BUCKET, Key=key, ChecksumMode="ENABLED")
        if kind == "COMPOSITE":
            binary = b"".join(base64.b64decode(part["ChecksumCRC32"]) for part in parts)
            expected = base64.b64encode(zlib.crc32(binary).to_bytes(4, "big")).decode() + "-2"
        else:
            expected = base64.b64encode(zlib.crc32(b"".join(parts_data)).to_bytes(4, "big")).decode()
        seen[f"multipart{kind}"] = " ".join([
            "complete:" + ("equal" if done.get("ChecksumCRC32") == expected else f"{done.get('ChecksumCRC32')}!={expected}"),
            "head:" + ("equal" if head.get("ChecksumCRC32") == expected else f"{head.get('ChecksumCRC32')}!={expected}"),
            str(head.get("ChecksumType"))])
    seen["malformedChecksum"] = code(lambda: S3.put_object(Bucket=BUCKET, Key="bad.bin", Body=b"1", ChecksumCRC32="!!"))


def form_upload(seen):
    post = S3.generate_presigned_post(BUCKET, "form/${filename}")
    boundary = "----wifconformance"
    body = b""
    for name, value in post["fields"].items():
        body += f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n".encode()
    body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n"
             "Content-Type: text/plain\r\n\r\nhello\r\n").encode()
    body += f"--{boundary}--\r\n".encode()
    request = urllib.request.Request(post["url"], data=body, method="POST",
                                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    seen["formUpload"] = status_of(request)


def metadata_words(seen):
    """Metadata outside US-ASCII travels as RFC 2047 encoded-words: decoded when stored, one UTF-8 word when
    sent back."""
    S3.put_object(Bucket=BUCKET, Key="metadata/words", Body=b"m",
                  Metadata={"plain": "abc", "word": "=?UTF-8?B?Y2Fmw6k=?=", "q": "=?utf-8?Q?caf=C3=A9?="})
    seen["metadataWords"] = S3.head_object(Bucket=BUCKET, Key="metadata/words")["Metadata"]


class ContinueLog(logging.Handler):
    """Collects what botocore's connection says about `Expect: 100-continue`."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        message = record.getMessage()
        if "100 Continue" in message or "request body" in message:
            self.lines.append(message)


def expect_continue(seen):
    """boto3 sends `Expect: 100-continue` with file bodies and sends the body only after `100 Continue`;
    an upload the stack refuses must be refused before its body goes out.

    botocore waits one second for that answer and then sends the body anyway; on a loaded machine the
    stack can take longer than that to answer at all. The wait is made a minute here, so that a body
    goes out only if the stack waits for it."""
    log = ContinueLog()
    connection = logging.getLogger("botocore.awsrequest")
    connection.addHandler(log)
    connection.setLevel(logging.DEBUG)
    wait_for_read = urllib3.util.wait_for_read
    urllib3.util.wait_for_read = lambda sock, timeout=None: wait_for_read(sock, 60)
    try:
        wrong = boto3.client("s3", endpoint_url=ENDPOINT, config=CONFIG, aws_access_key_id=os.environ["WIF_ACCESS_KEY"],
                             aws_secret_access_key="not-the-secret-" + uuid.uuid4().hex)
        seen["continueRefusedCode"] = code(lambda: wrong.put_object(
            Bucket=BUCKET, Key="continue/refused", Body=io.BytesIO(b"r" * (8 * MIB))))
        seen["continueRefusedLog"] = list(log.lines)
        seen["continueRefusedStored"] = code(lambda: S3.head_object(Bucket=BUCKET, Key="continue/refused"))
        log.lines.clear()
        seen["continueAcceptedCode"] = code(lambda: S3.put_object(
            Bucket=BUCKET, Key="continue/accepted", Body=io.BytesIO(b"a" * MIB)))
        seen["continueAcceptedLog"] = list(log.lines)
    finally:
        urllib3.util.wait_for_read = wait_for_read
        connection.removeHandler(log)


def main():
    seen = {}
    for check in [listing_past_common_prefix, completing_again, completion_rules, part_reads, copy_range, presigned_zero, content_encoding,
                  bucket_pages, conditional_deletes, acls_and_encryption, checksums, form_upload, expect_continue,
                  metadata_words]:
        try:
            check(seen)
        except Exception as error:  # one check failing must not hide the others' answers
            seen[check.__name__ + "Failed"] = f"{type(error).__name__}: {error}"
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
