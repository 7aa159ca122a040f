#!/usr/bin/env bash
# Drives a running local stack with the aws CLI: alice federates with assume-role-with-web-identity, then
# copies a file and a multipart-sized file in and out of her folder with `aws s3`, lists it, and is refused
# bob's folder. Prints one "name=value" line per observation; the Swift test asserts on them.
# Input: WIF_ENDPOINT, WIF_TOKEN, WIF_PROVIDER_ID (may be empty), WIF_ROLE_ARN, WIF_BUCKET, WIF_PREFIX,
# WIF_OTHER_PREFIX, WIF_WORK (an empty folder).
set -uo pipefail
command -v aws >/dev/null || { echo "the aws CLI is missing" >&2; exit 2; }
export AWS_DEFAULT_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
unset AWS_PROFILE AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
endpoint=(--endpoint-url "$WIF_ENDPOINT")
provider=()
[[ -n ${WIF_PROVIDER_ID:-} ]] && provider=(--provider-id "$WIF_PROVIDER_ID")

credentials=$(aws "${endpoint[@]}" sts assume-role-with-web-identity --role-arn "$WIF_ROLE_ARN" \
    --role-session-name aws-cli-test --web-identity-token "$WIF_TOKEN" "${provider[@]}" \
    --query 'Credentials.[AccessKeyId,SecretAccessKey,SessionToken]' --output text) || { echo "assume=failed"; exit 0; }
echo "assume=ok"
read -r AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN <<<"$credentials"
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN

echo "caller=$(aws "${endpoint[@]}" sts get-caller-identity --query Arn --output text 2>&1)"
printf 'small file from the aws CLI\n' >"$WIF_WORK/small.txt"
head -c $((9 * 1024 * 1024 + 17)) /dev/urandom >"$WIF_WORK/large.bin"
aws "${endpoint[@]}" s3 cp "$WIF_WORK/small.txt" "s3://$WIF_BUCKET/${WIF_PREFIX}cli/small.txt" --only-show-errors \
    && echo "putSmall=ok" || echo "putSmall=failed"
aws "${endpoint[@]}" s3 cp "$WIF_WORK/large.bin" "s3://$WIF_BUCKET/${WIF_PREFIX}cli/large.bin" --only-show-errors \
    && echo "putLarge=ok" || echo "putLarge=failed"
echo "etag=$(aws "${endpoint[@]}" s3api head-object --bucket "$WIF_BUCKET" --key "${WIF_PREFIX}cli/large.bin" --query ETag --output text 2>&1)"
echo "list=$(aws "${endpoint[@]}" s3 ls "s3://$WIF_BUCKET/${WIF_PREFIX}cli/" 2>&1 | awk '{print $4}' | sort | tr '\n' ',')"
mkdir -p "$WIF_WORK/back"
aws "${endpoint[@]}" s3 cp "s3://$WIF_BUCKET/${WIF_PREFIX}cli/large.bin" "$WIF_WORK/back/large.bin" --only-show-errors
cmp -s "$WIF_WORK/large.bin" "$WIF_WORK/back/large.bin" && echo "getLarge=equal" || echo "getLarge=different"
aws "${endpoint[@]}" s3 cp "s3://$WIF_BUCKET/${WIF_PREFIX}cli/small.txt" "$WIF_WORK/back/small.txt" --only-show-errors
cmp -s "$WIF_WORK/small.txt" "$WIF_WORK/back/small.txt" && echo "getSmall=equal" || echo "getSmall=different"
other=$(aws "${endpoint[@]}" s3api put-object --bucket "$WIF_BUCKET" --key "${WIF_OTHER_PREFIX}planted.txt" \
    --body "$WIF_WORK/small.txt" 2>&1)
echo "crossPut=$(grep -o 'AccessDenied' <<<"$other" | head -n 1)"
other=$(aws "${endpoint[@]}" s3 ls "s3://$WIF_BUCKET/${WIF_OTHER_PREFIX}" 2>&1)
echo "crossList=$(grep -o 'AccessDenied' <<<"$other" | head -n 1)"
aws "${endpoint[@]}" s3 rm "s3://$WIF_BUCKET/${WIF_PREFIX}cli/" --recursive --only-show-errors && echo "remove=ok" || echo "remove=failed"
echo "listAfter=$(aws "${endpoint[@]}" s3 ls "s3://$WIF_BUCKET/${WIF_PREFIX}cli/" 2>&1 | wc -l)"
