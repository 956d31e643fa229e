import ArgumentParser
import LayoutClient
import LayoutEngine
import LayoutRender
import LayoutWire

/// Builds the picture `render` draws, reporting failures in layoutctl's way (see `Layoutctl`'s exit codes).
struct PictureLoading {
    /// The query rect that covers every element of a kept layout: a query answer has no content size.
    static let everything = QueryRect(x: -1e300, y: -1e300, width: 2e300, height: 2e300)

    var options: GlobalOptions
    var rect: QueryRect?
    var limit: Int

    func picture(of source: PictureSource) throws -> LayoutPicture {
        switch source {
        case .jobFile(let path): try picture(ofJobFile: path)
        case .key(let key): try picture(ofKey: key)
        }
    }

    /// A job file: decoded and laid out here, as the daemon's `layout` op would.
    func picture(ofJobFile path: String) throws -> LayoutPicture {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.bytes(path)
        } catch {
            throw Failure.report(error)
        }
        let layout: PreparedLayout
        do {
            layout = try JobFile.prepare(bytes)
        } catch {
            // The error the daemon would answer with, in the words of its replies.
            Console.printError("error \(error)")
            throw ExitCode(Failure.replyErrorStatus)
        }
        var picture = try drawable { () throws(RenderError) in
            try LayoutPicture(layout: layout, rect: rect.map(Self.rect), limit: limit)
        }
        let name = path == "-" ? "standard input" : String(path.split(separator: "/").last ?? Substring(path))
        // The legend counts the elements by kind.
        let sections = layout.sectionCount == 1 ? "1 section" : "\(layout.sectionCount) sections"
        picture.title = "\(name): \(layout.input.parameters.kind.rawValue), \(sections), content "
            + "\(Format.number(layout.contentSize.width))×\(Format.number(layout.contentSize.height))"
        return picture
    }

    /// A kept layout: the elements of a `query` of `rect`, or of every element. Without a rect, `list`
    /// first tells the layout's item count, so a layout far over the limit is not sent whole.
    func picture(ofKey key: String) throws -> LayoutPicture {
        let result: AnyJSONObject
        do {
            let client = try options.makeClient()
            if rect == nil, let items = try Self.itemCount(of: key, client: client), items > limit {
                // Every item is an element: the layout is over the limit whatever else it holds.
                Console.printError("error: \(key) has \(items) items, more than the \(limit) elements a picture draws; \(Self.hint)")
                throw ExitCode.validationFailure
            }
            result = try Self.successful(client.query(key: key, rect: rect ?? Self.everything, format: .columns))
        } catch let error as ClientError {
            throw Failure.report(error)
        }
        guard let elements = ReplyElements.elements(result["attributes"]) else {
            throw Failure.report(.malformedReply("the query's attributes are not a list of elements"))
        }
        var picture = try drawable { () throws(RenderError) in
            try LayoutPicture(elements: elements, rect: rect.map(Self.rect), limit: limit)
        }
        picture.title = "\(key) v\(Format.number(result, "version")): \(elements.count) elements"
        return picture
    }

    /// The item count `list` gives for `key`; nil when it does not list it (the query then says why).
    private static func itemCount(of key: String, client: LayoutClient) throws -> Int? {
        let layouts = try successful(client.list()).objects("layouts") ?? []
        return layouts.first { $0.string("layout") == key }?.int("items")
    }

    /// The result of `reply`; a daemon error is printed and ends the command with status 1.
    private static func successful(_ reply: Reply) throws -> AnyJSONObject {
        if let error = reply.error {
            Console.printError(error.description)
            throw ExitCode(Failure.replyErrorStatus)
        }
        return reply.result
    }

    private func drawable(_ make: () throws(RenderError) -> LayoutPicture) throws -> LayoutPicture {
        do {
            return try make()
        } catch {
            throw Self.report(error)
        }
    }

    private static let hint = "draw a part with --rect x,y,w,h (or raise --limit)"

    /// A picture over the limit is a usage error: the same command with a rect works.
    private static func report(_ error: RenderError) -> ExitCode {
        Console.printError("error: \(error); \(hint)")
        return .validationFailure
    }

    private static func rect(_ rect: QueryRect) -> Rect {
        Rect(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    }
}
