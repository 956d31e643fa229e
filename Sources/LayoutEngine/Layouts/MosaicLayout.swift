/// Not implemented yet: places nothing.
enum MosaicLayout: SectionLayout {
    static func layOut(_ section: Section, parameters p: MosaicParameters, context: SectionContext) -> SectionFrames {
        SectionFrames(cells: FrameColumns(), header: nil, footer: nil, height: 0)
    }
}
