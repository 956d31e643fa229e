/// Not implemented yet: places nothing.
enum ColumnsLayout: SectionLayout {
    static func layOut(_ section: Section, parameters p: ColumnsParameters, context: SectionContext) -> SectionFrames {
        SectionFrames(cells: FrameColumns(), header: nil, footer: nil, height: 0)
    }
}
