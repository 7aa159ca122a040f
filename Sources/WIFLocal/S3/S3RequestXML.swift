import WIFFoundation

/// Reading the small XML bodies of S3 requests (`Delete`, `CompleteMultipartUpload`,
/// `CreateBucketConfiguration`): S3's documents are a few levels deep, so a tight depth bound costs
/// a hostile body little, and every failure is S3's `MalformedXML` naming the problem and its byte.
enum S3RequestXML {
    /// The bounds on a request body.
    static let limits = XMLReader.Limits(maximumDepth: 8, maximumElements: 50_000, acceptsNullCharacterReference: false)

    /// Parses a request body.
    /// - Throws: `MalformedXML` naming what was wrong and where.
    static func parse(_ bytes: [UInt8], limits: XMLReader.Limits = Self.limits) throws(AWSErrorResponse) -> XMLTreeElement {
        do {
            return try XMLReader.parse(bytes, limits: limits)
        } catch {
            throw ObjectStoreError.malformedXML(error.description)
        }
    }
}
