/// The folders of a removed table (`todo table rm`).
extension Store {
    /// Stages the removal of a table's item numbers (`ItemNumbers`), with the rest of its files.
    public func removeItemNumbers(table: String, in tx: inout StoreTransaction) throws(StoreError) {
        let dir = ItemNumbers.folder(layout, table)
        for name in try list(dir) { tx.remove(dir + "/" + name) }
    }

    /// After a commit that removed every file of a table, its empty folders go too, so the
    /// replica no longer lists the table. A crash before this leaves empty folders: the table is
    /// listed with nothing in it, and removing it again finishes the job.
    public func removeEmptyTableFolders(_ table: String) throws(StoreError) {
        do {
            try fs.removeDirectory(layout.absolute(layout.itemsDirectory(table)))
            if fs.isDirectory(layout.absolute(ItemNumbers.folder(layout, table))) {
                try fs.removeDirectory(layout.absolute(ItemNumbers.folder(layout, table)))
            }
            try fs.removeDirectory(layout.absolute(layout.tableDirectory(table)))
            try fs.syncDirectory(layout.absolute(StoreLayout.tablesDirectory))
        } catch {
            throw .io(error)
        }
    }
}
