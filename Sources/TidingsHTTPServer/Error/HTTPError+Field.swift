extension HTTPError {
    /// A problem with one named field or parameter of a request, in the
    /// shape every input error takes: detail "<field>: <message>" and a
    /// `field` member naming it. 422 for body fields, 400 for the path and
    /// query.
    package static func field(_ field: String, _ message: String, status: HTTPStatus = .unprocessableContent) -> HTTPError {
        HTTPError(status, detail: "\(field): \(message)", extensions: ["field": field])
    }
}
