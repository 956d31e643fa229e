/// Not implemented yet: places nothing.
enum FlowLayout: SectionLayout {
    static func layOut(_ section: Section, parameters p: FlowParameters, context: SectionContext) -> SectionFrames {
        SectionFrames(cells: FrameColumns(), header: nil, footer: nil, height: 0)
    }
}
