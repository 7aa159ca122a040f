/// One element of a document read by ``XMLReader``: its local name, namespace, text and children.
package struct XMLTreeElement: Sendable, Hashable {
    /// The name without a namespace prefix.
    package var name: String
    /// The namespace URI the element's prefix (or the default namespace) resolves to, if any.
    package var namespace: String?
    /// The text directly inside the element, entities decoded and not trimmed (S3 keys may start with
    /// spaces).
    package var text: String
    /// The child elements in document order.
    package var children: [XMLTreeElement]

    package init(name: String, namespace: String? = nil, text: String = "", children: [XMLTreeElement] = []) {
        self.name = name
        self.namespace = namespace
        self.text = text
        self.children = children
    }

    /// The first child with a name.
    package func child(_ name: String) -> XMLTreeElement? {
        self.children.first { $0.name == name }
    }

    /// Every child with a name.
    package func children(named name: String) -> [XMLTreeElement] {
        self.children.filter { $0.name == name }
    }

    /// The element reached by following `path` from here, one child name at a time.
    package func element(_ path: String...) -> XMLTreeElement? {
        self.element(path)
    }

    /// The text of the element at `path`, exactly as written, or `nil` when there is no such element.
    package func text(_ path: String...) -> String? {
        self.element(path)?.text
    }

    /// The text of the child named `name`, exactly as written, or `nil` when there is no such child.
    ///
    /// The same as `text(path)` with one name, without building a path: a listing reads a few fields
    /// of each of a thousand entries this way.
    package func text(_ name: String) -> String? {
        self.child(name)?.text
    }

    /// The text of the element at `path` with surrounding whitespace removed, or `nil` when there is
    /// no such element or it has no text.
    package func trimmedText(_ path: String...) -> String? {
        self.element(path).flatMap { XMLTreeElement.trimmed($0.text) }
    }

    /// The text of the child named `name` with surrounding whitespace removed, or `nil` when there is
    /// no such child or it has no text.
    package func trimmedText(_ name: String) -> String? {
        self.child(name).flatMap { XMLTreeElement.trimmed($0.text) }
    }

    /// The first element with a name at any depth, this one included.
    package func first(_ name: String) -> XMLTreeElement? {
        if self.name == name { return self }
        for child in self.children {
            if let found = child.first(name) { return found }
        }
        return nil
    }

    private func element(_ path: [String]) -> XMLTreeElement? {
        var current = self
        for name in path {
            guard let next = current.child(name) else { return nil }
            current = next
        }
        return current
    }

    /// The text without surrounding whitespace, or `nil` when nothing else is left.
    private static func trimmed(_ text: String) -> String? {
        let trimmed = XMLTreeElement.trim(text)
        return trimmed.isEmpty ? nil : trimmed
    }

    private static func trim(_ text: String) -> String {
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}
