import WIFFoundation

/// The small HTML pages of the authorization server: the sign-in form, the device verification form and
/// one-line outcomes. Every value from a request is escaped. The fields and buttons have fixed `id`s, which
/// `scripts/browser-sign-in` drives them by.
enum OAuthPages {
    /// A complete page.
    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">\
        <title>\(self.escape(title)) · WIFLocal</title>\
        <style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}\
        input,button{font-size:1rem;padding:.4rem;margin:.2rem 0}.problem{color:#a00}</style></head>
        <body><h1>\(self.escape(title))</h1>
        \(body)
        </body></html>

        """
    }

    /// A page with one message.
    static func message(title: String, text: String) -> String {
        self.page(title: title, body: "<p>\(self.escape(text))</p>")
    }

    /// The sign-in form of the authorization endpoint: the request's parameters carried in hidden fields,
    /// and the user name to sign in as.
    static func authorizeForm(form: OAuthForm, clientId: String, scopes: [String], problem: String?) -> String {
        var body = "<p>Sign in to <strong>\(self.escape(clientId))</strong>, which asks for: \(self.escape(scopes.joined(separator: ", "))).</p>\n"
        if let problem { body += "<p class=\"problem\">\(self.escape(problem))</p>\n" }
        body += "<form method=\"get\" action=\"\(OAuthEndpoints.authorizePath)\">\n"
        for (name, value) in form.all where name != "login_hint" {
            body += "<input type=\"hidden\" name=\"\(self.escape(name))\" value=\"\(self.escape(value))\">\n"
        }
        body += """
            <label>Development user <input id="login_hint" name="login_hint" required autofocus autocomplete="username" maxlength="128" value="\(self.escape(form["login_hint"] ?? ""))"></label>
            <button id="sign-in" type="submit">Sign in</button>
            </form>
            """
        return self.page(title: "Sign in", body: body)
    }

    /// The device verification form: the user code, the user, approve or deny.
    static func deviceForm(userCode: String?, pending: (clientId: String, scopes: [String])?, problem: String?) -> String {
        var body = ""
        if let pending {
            body += "<p><strong>\(self.escape(pending.clientId))</strong> asks for: \(self.escape(pending.scopes.joined(separator: ", "))).</p>\n"
        } else {
            body += "<p>Enter the code shown on your device.</p>\n"
        }
        if let problem { body += "<p class=\"problem\">\(self.escape(problem))</p>\n" }
        body += """
            <form method="post" action="\(OAuthEndpoints.devicePath)">
            <label>Code <input id="user_code" name="user_code" required autocomplete="off" maxlength="16" value="\(self.escape(userCode ?? ""))"></label><br>
            <label>Development user <input id="login_hint" name="login_hint" autocomplete="username" maxlength="128"></label><br>
            <button id="approve" type="submit" name="action" value="approve">Approve</button>
            <button id="deny" type="submit" name="action" value="deny">Deny</button>
            </form>
            """
        return self.page(title: "Connect a device", body: body)
    }

    /// Text escaped for HTML content and attribute values.
    static func escape(_ text: String) -> String {
        XMLWriter.escape(text)
    }
}
