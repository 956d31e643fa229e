/// The console's files, compiled into the binary (`resources: [.embedInCode(…)]`): nothing to install,
/// no build step, works offline. Served at `/` (index.html) and `/console/<name>`.
enum ConsoleAssets {
    struct Asset: Sendable {
        var bytes: [UInt8]
        var contentType: String
    }

    static let json = "application/json; charset=utf-8"

    /// Every file by the name the page asks for.
    static let files: [String: [UInt8]] = [
        "index.html": PackageResources.index_html,
        "console.css": PackageResources.console_css,
        "app.js": PackageResources.app_js,
        "api.js": PackageResources.api_js,
        "chart.js": PackageResources.chart_js,
        "overview.js": PackageResources.overview_js,
        "layouts.js": PackageResources.layouts_js,
        "events.js": PackageResources.events_js,
        "playground.js": PackageResources.playground_js,
        "jobs/columnFlow.json": PackageResources.columnFlow_json,
        "jobs/columns.json": PackageResources.columns_json,
        "jobs/flow.json": PackageResources.flow_json,
        "jobs/justified.json": PackageResources.justified_json,
        "jobs/list.json": PackageResources.list_json,
        "jobs/mosaic.json": PackageResources.mosaic_json,
        "jobs/waterfall.json": PackageResources.waterfall_json,
        "jobs/waterfall-seed004.json": PackageResources.waterfall_seed004_json,
    ]

    static func asset(named name: String) -> Asset? {
        guard let bytes = files[name] else { return nil }
        return Asset(bytes: bytes, contentType: contentType(of: name))
    }

    /// The page's weight: every file it loads, uncompressed.
    static var totalBytes: Int { files.values.reduce(0) { $0 + $1.count } }

    private static func contentType(of name: String) -> String {
        if name.hasSuffix(".html") { return "text/html; charset=utf-8" }
        if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
        if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        return json
    }
}
