/// Not implemented yet: places nothing.
enum WaterfallLayout: SectionLayout {
    static func layOut(_ section: Section, parameters p: WaterfallParameters, context: SectionContext) -> SectionFrames {
        SectionFrames(cells: FrameColumns(), header: nil, footer: nil, height: 0)
    }
}
