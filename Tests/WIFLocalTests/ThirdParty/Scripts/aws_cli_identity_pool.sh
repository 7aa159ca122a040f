#!/usr/bin/env bash
# Drives the local stack's identity pool with the aws CLI: a Google user signs in through cognito-identity
# (enhanced flow), writes public/ and their private/ folder; a guest reads public/ and is refused a write.
# Prints one "name=value" line per observation; the Swift test asserts on them.
# Input: WIF_ENDPOINT, WIF_POOL, WIF_TOKEN (a Google development token), WIF_WORK (an empty folder).
set -uo pipefail
command -v aws >/dev/null || { echo "the aws CLI is missing" >&2; exit 2; }
export AWS_DEFAULT_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
unset AWS_PROFILE AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
endpoint=(--endpoint-url "$WIF_ENDPOINT")
logins="{\"accounts.google.com\":\"$WIF_TOKEN\"}"

# Exports the credentials of an identity: get-credentials-for-identity with the given extra arguments.
use_identity() {
    local credentials
    credentials=$(aws "${endpoint[@]}" --no-sign-request cognito-identity get-credentials-for-identity "$@" \
        --query 'Credentials.[AccessKeyId,SecretKey,SessionToken]' --output text) || return 1
    read -r AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN <<<"$credentials"
    export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
}

user=$(aws "${endpoint[@]}" --no-sign-request cognito-identity get-id --identity-pool-id "$WIF_POOL" --logins "$logins" \
    --query IdentityId --output text) || { echo "userId=failed"; exit 0; }
echo "userId=$user"
use_identity --identity-id "$user" --logins "$logins" && echo "userCredentials=ok" || echo "userCredentials=failed"
printf 'from the aws CLI\n' >"$WIF_WORK/note.txt"
aws "${endpoint[@]}" s3api put-object --bucket wif-personal --key public/cli.txt --body "$WIF_WORK/note.txt" >/dev/null 2>&1 \
    && echo "userPutPublic=ok" || echo "userPutPublic=failed"
aws "${endpoint[@]}" s3api put-object --bucket wif-personal --key "private/$user/cli.txt" --body "$WIF_WORK/note.txt" >/dev/null 2>&1 \
    && echo "userPutPrivate=ok" || echo "userPutPrivate=failed"

unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
guest=$(aws "${endpoint[@]}" --no-sign-request cognito-identity get-id --identity-pool-id "$WIF_POOL" --query IdentityId --output text)
echo "guestId=$guest"
use_identity --identity-id "$guest" && echo "guestCredentials=ok" || echo "guestCredentials=failed"
aws "${endpoint[@]}" s3api get-object --bucket wif-personal --key public/cli.txt "$WIF_WORK/back.txt" >/dev/null 2>&1
cmp -s "$WIF_WORK/note.txt" "$WIF_WORK/back.txt" && echo "guestGetPublic=equal" || echo "guestGetPublic=different"
refused=$(aws "${endpoint[@]}" s3api put-object --bucket wif-personal --key public/guest.txt --body "$WIF_WORK/note.txt" 2>&1)
echo "guestPutPublic=$(grep -o 'AccessDenied' <<<"$refused" | head -n 1)"
refused=$(aws "${endpoint[@]}" --no-sign-request cognito-identity get-credentials-for-identity --identity-id "$user" 2>&1)
echo "userWithoutLogins=$(grep -o 'NotAuthorizedException' <<<"$refused" | head -n 1)"
