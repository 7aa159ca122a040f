import Crypto
import _CryptoExtras
import Foundation
import WIFFoundation
import X509

/// The development issuer's RS256 key and its self-signed certificate, kept in the data directory.
///
/// The key (`keys/issuer-signing-key.pem`, PKCS#8, mode 0600) and the certificate
/// (`keys/issuer-certificate.pem`) are created once and reused after every restart, so tokens issued
/// before a restart still verify and peers that cached the JWKS keep working. Creation is
/// create-if-absent (a hard link of a fully written temporary file), so two processes opening the same
/// directory at once agree on one key.
///
/// The key id is the key's RFC 7638 JWK thumbprint (SHA-256, base64url): stable for the key, different
/// for every other key.
struct IssuerSigningKey: Sendable {
    /// The file name of the private key under `keys/`.
    static let keyFileName = "issuer-signing-key.pem"
    /// The file name of the certificate under `keys/`.
    static let certificateFileName = "issuer-certificate.pem"
    /// How long a new certificate is valid.
    static let certificateLifetime: TimeInterval = 10 * 365 * 86_400

    /// The private key.
    let privateKey: _RSA.Signing.PrivateKey
    /// The public key.
    let publicKey: _RSA.Signing.PublicKey
    /// The certificate's DER bytes, for `x5c`.
    let certificateDER: [UInt8]
    /// The key id (`kid`).
    let keyId: String
    /// The modulus, unsigned big-endian without leading zeros, base64url (`n`).
    let modulus: String
    /// The public exponent, base64url (`e`).
    let exponent: String

    /// Loads the key and certificate from the data directory, creating them when missing.
    /// - Parameters:
    ///   - data: The data directory.
    ///   - now: The current time, the start of a new certificate's validity.
    ///   - subject: The common name of a new certificate (the issuer's host).
    /// - Throws: ``LocalStackError`` when a file cannot be read or written, holds something else than an
    ///   RSA key of at least 2048 bits, or the certificate is not for the key.
    static func load(from data: DataDirectory, now: Date, subject: String) throws(LocalStackError) -> IssuerSigningKey {
        let keyPath = data.keys + "/" + Self.keyFileName
        let certificatePath = data.keys + "/" + Self.certificateFileName

        let keyPEM = try Self.readOrCreate(keyPath, in: data) { () throws(LocalStackError) -> Data in
            do {
                let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
                return Data(key.pkcs8PEMRepresentation.utf8)
            } catch {
                throw LocalStackError("cannot create the issuer's signing key: \(error)")
            }
        }
        let privateKey: _RSA.Signing.PrivateKey
        do {
            privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: String(decoding: keyPEM, as: UTF8.self))
        } catch {
            throw LocalStackError("the key file \(keyPath) does not hold an RSA private key of at least 2048 bits; remove it to create a new one")
        }

        let certificatePEM = try Self.readOrCreate(certificatePath, in: data) { () throws(LocalStackError) -> Data in
            try Data(Self.makeCertificate(for: privateKey, now: now, subject: subject).utf8)
        }
        let certificate: Certificate
        do {
            certificate = try Certificate(pemEncoded: String(decoding: certificatePEM, as: UTF8.self))
        } catch {
            throw LocalStackError("the file \(certificatePath) does not hold a PEM certificate; remove it to create a new one")
        }
        guard let certifiedKey = _RSA.Signing.PublicKey(certificate.publicKey),
            certifiedKey.derRepresentation == privateKey.publicKey.derRepresentation
        else {
            throw LocalStackError("the certificate \(certificatePath) is not for the key \(keyPath); remove the certificate to create a new one")
        }
        let certificateDER: [UInt8]
        do {
            certificateDER = try certificate.serializeAsPEM().derBytes
        } catch {
            throw LocalStackError("cannot encode the certificate \(certificatePath): \(error)")
        }
        return try IssuerSigningKey(privateKey: privateKey, certificateDER: certificateDER)
    }

    init(privateKey: _RSA.Signing.PrivateKey, certificateDER: [UInt8]) throws(LocalStackError) {
        self.privateKey = privateKey
        self.publicKey = privateKey.publicKey
        self.certificateDER = certificateDER
        let primitives: _RSA.Signing.PublicKey.Primitives
        do {
            primitives = try self.publicKey.getKeyPrimitives()
        } catch {
            throw LocalStackError("cannot read the issuer key's modulus and exponent: \(error)")
        }
        self.modulus = TokenEncoding.base64URL(primitives.modulus.drop { $0 == 0 })
        self.exponent = TokenEncoding.base64URL(primitives.publicExponent.drop { $0 == 0 })
        self.keyId = Self.thumbprint(modulus: self.modulus, exponent: self.exponent)
    }

    /// The RFC 7638 thumbprint of an RSA public key: SHA-256 of its required members in lexicographic
    /// order with no white space, base64url.
    static func thumbprint(modulus: String, exponent: String) -> String {
        let canonical = #"{"e":"\#(exponent)","kty":"RSA","n":"\#(modulus)"}"#
        return TokenEncoding.base64URL(Array(SHA256.hash(data: Data(canonical.utf8))))
    }

    /// Signs a JWS signing input (`header.payload`) with RS256 and returns the whole token.
    func signToken(signingInput: String) throws(LocalStackError) -> String {
        do {
            let signature = try self.privateKey.signature(for: SHA256.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
            return signingInput + "." + TokenEncoding.base64URL(signature.rawRepresentation)
        } catch {
            throw LocalStackError("cannot sign a development token: \(error)")
        }
    }

    /// The key as one JWK of a JWKS: `kty`, `use`, `alg`, `kid`, `n`, `e` and `x5c`.
    var jwkJSON: String {
        let certificate = Data(self.certificateDER).base64EncodedString()
        return #"{"kty":"RSA","use":"sig","alg":"RS256","kid":"\#(self.keyId)","n":"\#(self.modulus)","e":"\#(self.exponent)","x5c":["\#(certificate)"]}"#
    }

    private static func makeCertificate(for key: _RSA.Signing.PrivateKey, now: Date, subject: String) throws(LocalStackError) -> String {
        do {
            let signer = Certificate.PrivateKey(key)
            let name = try DistinguishedName {
                CommonName(subject.isEmpty ? "wif.localhost" : subject)
                OrganizationName("WIFLocal development issuer")
            }
            var serial = SecureRandom.bytes(16)
            serial[0] &= 0x7F
            let certificate = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(bytes: serial),
                publicKey: signer.publicKey,
                notValidBefore: now.addingTimeInterval(-300),
                notValidAfter: now.addingTimeInterval(Self.certificateLifetime),
                issuer: name,
                subject: name,
                signatureAlgorithm: .sha256WithRSAEncryption,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                },
                issuerPrivateKey: signer
            )
            return try certificate.serializeAsPEM().pemString
        } catch {
            throw LocalStackError("cannot create the issuer's certificate: \(error)")
        }
    }

    /// Reads a file, or creates it with `make()` when it does not exist. Creation never replaces a file
    /// another process created meanwhile: the content is written to a temporary file, synced, then
    /// hard-linked to the final name, which fails if the name exists; the existing file is then read.
    private static func readOrCreate(
        _ path: String, in data: DataDirectory, make: () throws(LocalStackError) -> Data
    ) throws(LocalStackError) -> Data {
        if let existing = FileManager.default.contents(atPath: path) { return existing }
        let content = try make()
        let temporary = data.keys + "/.\(UUID().uuidString).tmp"
        defer { unlink(temporary) }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw LocalStackError("cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        let written = content.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return fsync(descriptor) == 0 }
            var offset = 0
            while offset < buffer.count {
                let result = write(descriptor, base + offset, buffer.count - offset)
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += result
            }
            return fsync(descriptor) == 0
        }
        close(descriptor)
        guard written else { throw LocalStackError("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        if link(temporary, path) != 0 && errno != EEXIST {
            throw LocalStackError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        guard let stored = FileManager.default.contents(atPath: path) else {
            throw LocalStackError("cannot read \(path)")
        }
        return stored
    }
}
