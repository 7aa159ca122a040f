/// The actions Amazon S3 defines (service prefix `s3`), as AWS's Service Authorization Reference for
/// Amazon S3 lists them in 2026; actions S3 adds later are missing until they are added here. IAM accepts a
/// policy that names any other `s3:` action, and that part of the policy then matches no request:
/// `policy validate` warns about it (a warning, never an error), with the closest name.
enum S3ActionNames {
    /// Every action's name after `s3:`, sorted.
    static let all: [String] = """
        AbortMultipartUpload AllowVendedLogDeliveryForResource AssociateAccessGrantsIdentityCenter
        BypassGovernanceRetention CreateAccessGrant CreateAccessGrantsInstance CreateAccessGrantsLocation
        CreateAccessPoint CreateAccessPointForObjectLambda CreateBucket CreateBucketMetadataTableConfiguration
        CreateJob CreateMultiRegionAccessPoint CreateStorageLensGroup DeleteAccessGrant
        DeleteAccessGrantsInstance DeleteAccessGrantsInstanceResourcePolicy DeleteAccessGrantsLocation
        DeleteAccessPoint DeleteAccessPointForObjectLambda DeleteAccessPointPolicy
        DeleteAccessPointPolicyForObjectLambda DeleteBucket DeleteBucketMetadataTableConfiguration
        DeleteBucketPolicy DeleteBucketWebsite DeleteJobTagging DeleteMultiRegionAccessPoint DeleteObject
        DeleteObjectAnnotation DeleteObjectTagging DeleteObjectVersion DeleteObjectVersionAnnotation
        DeleteObjectVersionTagging DeleteStorageLensConfiguration DeleteStorageLensConfigurationTagging
        DeleteStorageLensGroup DescribeJob DescribeMultiRegionAccessPointOperation
        DissociateAccessGrantsIdentityCenter GetAccelerateConfiguration GetAccessGrant GetAccessGrantsInstance
        GetAccessGrantsInstanceForPrefix GetAccessGrantsInstanceResourcePolicy GetAccessGrantsLocation
        GetAccessPoint GetAccessPointConfigurationForObjectLambda GetAccessPointForObjectLambda
        GetAccessPointPolicy GetAccessPointPolicyForObjectLambda GetAccessPointPolicyStatus
        GetAccessPointPolicyStatusForObjectLambda GetAccountPublicAccessBlock GetAnalyticsConfiguration
        GetBucketAbac GetBucketAcl GetBucketCORS GetBucketLocation GetBucketLogging
        GetBucketMetadataTableConfiguration GetBucketNotification GetBucketObjectLockConfiguration
        GetBucketOwnershipControls GetBucketPolicy GetBucketPolicyStatus GetBucketPublicAccessBlock
        GetBucketRequestPayment GetBucketTagging GetBucketVersioning GetBucketWebsite GetDataAccess
        GetEncryptionConfiguration GetIntelligentTieringConfiguration GetInventoryConfiguration GetJobTagging
        GetLifecycleConfiguration GetMetricsConfiguration GetMultiRegionAccessPoint
        GetMultiRegionAccessPointPolicy GetMultiRegionAccessPointPolicyStatus GetMultiRegionAccessPointRoutes
        GetObject GetObjectAcl GetObjectAnnotation GetObjectAttributes GetObjectLegalHold GetObjectRetention
        GetObjectTagging GetObjectTorrent GetObjectVersion GetObjectVersionAcl GetObjectVersionAnnotation
        GetObjectVersionAnnotationForReplication GetObjectVersionAttributes GetObjectVersionForReplication
        GetObjectVersionTagging GetObjectVersionTorrent GetReplicationConfiguration GetStorageLensConfiguration
        GetStorageLensConfigurationTagging GetStorageLensDashboard GetStorageLensGroup InitiateReplication
        ListAccessGrants ListAccessGrantsInstances ListAccessGrantsLocations ListAccessPoints
        ListAccessPointsForObjectLambda ListAllMyBuckets ListBucket ListBucketMultipartUploads ListBucketVersions
        ListCallerAccessGrants ListJobs ListMultiRegionAccessPoints ListMultipartUploadParts
        ListObjectAnnotations ListObjectVersionAnnotations ListStorageLensConfigurations ListStorageLensGroups
        ListTagsForResource ObjectOwnerOverrideToBucketOwner PauseReplication PutAccelerateConfiguration
        PutAccessGrantsInstanceResourcePolicy PutAccessPointConfigurationForObjectLambda PutAccessPointPolicy
        PutAccessPointPolicyForObjectLambda PutAccessPointPublicAccessBlock PutAccountPublicAccessBlock
        PutAnalyticsConfiguration PutBucketAbac PutBucketAcl PutBucketCORS PutBucketLogging PutBucketNotification
        PutBucketObjectLockConfiguration PutBucketOwnershipControls PutBucketPolicy PutBucketPublicAccessBlock
        PutBucketRequestPayment PutBucketTagging PutBucketVersioning PutBucketWebsite PutEncryptionConfiguration
        PutIntelligentTieringConfiguration PutInventoryConfiguration PutJobTagging PutLifecycleConfiguration
        PutMetricsConfiguration PutMultiRegionAccessPointPolicy PutObject PutObjectAcl PutObjectAnnotation
        PutObjectLegalHold PutObjectRetention PutObjectTagging PutObjectVersionAcl PutObjectVersionAnnotation
        PutObjectVersionTagging PutReplicationConfiguration PutStorageLensConfiguration
        PutStorageLensConfigurationTagging ReplicateDelete ReplicateObject ReplicateObjectAnnotation
        ReplicateTags RestoreObject SubmitMultiRegionAccessPointRoutes TagResource UntagResource
        UpdateAccessGrantsLocation UpdateBucketMetadataAnnotationTableConfiguration
        UpdateBucketMetadataInventoryTableConfiguration UpdateBucketMetadataJournalTableConfiguration
        UpdateJobPriority UpdateJobStatus UpdateObjectEncryption UpdateStorageLensGroup
        """.split(whereSeparator: \.isWhitespace).map(String.init)

    /// Each action as policies write it, `s3:GetObject`.
    static let qualified: [String] = all.map { "s3:" + $0 }

    /// The names as AWS writes them, which policies almost always use: found without lowercasing.
    static let exact: Set<String> = Set(all)

    /// The names lowercased, as IAM compares actions.
    static let lowercased: Set<String> = Set(all.map { $0.lowercased() })

    /// S3 API operations whose permission has another name, lowercased, with the actions they need: a
    /// policy that names the operation (`s3:ListBuckets`, `s3:HeadObject`) grants nothing.
    static let operations: [String: [String]] = [
        "listbuckets": ["ListAllMyBuckets"], "listobjects": ["ListBucket"], "listobjectsv2": ["ListBucket"],
        "headbucket": ["ListBucket"], "headobject": ["GetObject"], "listobjectversions": ["ListBucketVersions"],
        "listparts": ["ListMultipartUploadParts"], "listmultipartuploads": ["ListBucketMultipartUploads"],
        "createmultipartupload": ["PutObject"], "uploadpart": ["PutObject"], "completemultipartupload": ["PutObject"],
        "uploadpartcopy": ["GetObject", "PutObject"], "copyobject": ["GetObject", "PutObject"],
        "deleteobjects": ["DeleteObject"], "selectobjectcontent": ["GetObject"],
        "getbucketencryption": ["GetEncryptionConfiguration"], "putbucketencryption": ["PutEncryptionConfiguration"],
        "getbucketlifecycleconfiguration": ["GetLifecycleConfiguration"],
        "putbucketlifecycleconfiguration": ["PutLifecycleConfiguration"],
        "getbucketreplication": ["GetReplicationConfiguration"], "putbucketreplication": ["PutReplicationConfiguration"],
        "getpublicaccessblock": ["GetBucketPublicAccessBlock"], "putpublicaccessblock": ["PutBucketPublicAccessBlock"],
        "getobjectlockconfiguration": ["GetBucketObjectLockConfiguration"],
        "putobjectlockconfiguration": ["PutBucketObjectLockConfiguration"],
        "getbucketaccelerateconfiguration": ["GetAccelerateConfiguration"],
        "putbucketaccelerateconfiguration": ["PutAccelerateConfiguration"],
        "getbucketnotificationconfiguration": ["GetBucketNotification"],
        "putbucketnotificationconfiguration": ["PutBucketNotification"],
    ]
}
