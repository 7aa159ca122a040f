"""Drives the local stack's identity pool with boto3's cognito-identity client, as an app using AWS's SDK
would: a signed-in user (enhanced flow) writes public/ and their private/ folder, a guest reads public/
and is refused writes, the same user through the basic flow (GetOpenIdToken, then STS), and an unknown
pool.

Input: WIF_ENDPOINT, WIF_POOL, WIF_TOKEN (a Google development token) and WIF_ROLE (the authenticated
role's ARN). Output: one JSON object of observations on stdout; the Swift test asserts on them. Exit 2
on a setup failure."""
import json
import os
import sys

try:
    import boto3
    from botocore import UNSIGNED
    from botocore.config import Config
    from botocore.exceptions import ClientError
except ImportError as error:
    print(f"boto3 is missing: {error}", file=sys.stderr)
    sys.exit(2)

ENDPOINT = os.environ["WIF_ENDPOINT"]
POOL = os.environ["WIF_POOL"]
LOGINS = {"accounts.google.com": os.environ["WIF_TOKEN"]}
ROLE = os.environ["WIF_ROLE"]
UNSIGNED_CONFIG = Config(region_name="us-east-1", signature_version=UNSIGNED, retries={"max_attempts": 1})
S3_CONFIG = Config(region_name="us-east-1", signature_version="s3v4", retries={"max_attempts": 1},
                   s3={"addressing_style": "path"})


def code(call):
    """The error code of a call, or "OK"."""
    try:
        call()
        return "OK"
    except ClientError as error:
        return error.response["Error"]["Code"]


def s3_for(credentials, secret_field="SecretKey"):
    return boto3.client("s3", endpoint_url=ENDPOINT, config=S3_CONFIG,
                        aws_access_key_id=credentials["AccessKeyId"],
                        aws_secret_access_key=credentials[secret_field],
                        aws_session_token=credentials["SessionToken"])


cognito = boto3.client("cognito-identity", endpoint_url=ENDPOINT, config=UNSIGNED_CONFIG)
seen = {}

user_id = cognito.get_id(IdentityPoolId=POOL, Logins=LOGINS)["IdentityId"]
seen["sameIdAgain"] = cognito.get_id(IdentityPoolId=POOL, Logins=LOGINS)["IdentityId"] == user_id
answer = cognito.get_credentials_for_identity(IdentityId=user_id, Logins=LOGINS)
seen["expirationIsDate"] = hasattr(answer["Credentials"]["Expiration"], "year")
user = s3_for(answer["Credentials"])
seen["userPutPublic"] = code(lambda: user.put_object(Bucket="wif-personal", Key="public/boto3.txt", Body=b"from boto3"))
seen["userPutPrivate"] = code(lambda: user.put_object(Bucket="wif-personal", Key=f"private/{user_id}/a.txt", Body=b"x"))

guest_id = cognito.get_id(IdentityPoolId=POOL)["IdentityId"]
seen["guestDiffers"] = guest_id != user_id
guest = s3_for(cognito.get_credentials_for_identity(IdentityId=guest_id)["Credentials"])
seen["guestReadPublic"] = guest.get_object(Bucket="wif-personal", Key="public/boto3.txt")["Body"].read().decode()
seen["guestPutPublic"] = code(lambda: guest.put_object(Bucket="wif-personal", Key="public/guest.txt", Body=b"x"))
seen["guestReadPrivate"] = code(lambda: guest.get_object(Bucket="wif-personal", Key=f"private/{user_id}/a.txt"))

token = cognito.get_open_id_token(IdentityId=user_id, Logins=LOGINS)
sts = boto3.client("sts", endpoint_url=ENDPOINT, config=UNSIGNED_CONFIG)
basic = sts.assume_role_with_web_identity(RoleArn=ROLE, RoleSessionName="boto3-basic", WebIdentityToken=token["Token"])
seen["basicProvider"] = basic.get("Provider")
basic_s3 = s3_for(basic["Credentials"], secret_field="SecretAccessKey")
seen["basicPutPrivate"] = code(lambda: basic_s3.put_object(Bucket="wif-personal", Key=f"private/{user_id}/b.txt", Body=b"x"))

seen["unknownPool"] = code(lambda: cognito.get_id(IdentityPoolId="us-east-1:00000000-0000-4000-8000-0000000000ff"))
seen["badToken"] = code(lambda: cognito.get_id(IdentityPoolId=POOL, Logins={"accounts.google.com": "not.a.token"}))
print(json.dumps(seen))
