/// Not implemented yet: places nothing.
enum ColumnFlowLayout: SectionLayout {
    static func layOut(_ section: Section, parameters p: ColumnFlowParameters, context: SectionContext) -> SectionFrames {
        SectionFrames(cells: FrameColumns(), header: nil, footer: nil, height: 0)
    }
}
