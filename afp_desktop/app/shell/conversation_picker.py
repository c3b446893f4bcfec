"""Which conversation of a bug-report bundle to replay: asked when a bundle of several is opened without a
choice (the Bug report panel switches between them afterwards)."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from afp_desktop.app.panels.banner import plain_label


class ConversationPicker(QDialog):
    def __init__(self, path: str, conversations, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Choose a conversation")
        self.setObjectName("conversationPicker")
        column = QVBoxLayout(self)
        column.addWidget(plain_label(f"{os.path.basename(path)} is a bug report holding {len(conversations)} "
                                     "conversations. Which one do you want to replay? (You can switch later in "
                                     "the Bug report panel.)", wrap=True))
        self.list = QListWidget()
        for conv in conversations:
            text = conv.id if not conv.label else f"{conv.id}  ·  {conv.label}"
            item = QListWidgetItem(text)  # a list item's text is never interpreted as markup
            item.setData(Qt.ItemDataRole.UserRole, conv.id)
            self.list.addItem(item)
        self.list.setCurrentRow(0)
        self.list.itemDoubleClicked.connect(lambda _item: self.accept())
        column.addWidget(self.list, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Open | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)
        self.resize(520, 300)

    def chosen(self) -> str | None:
        item = self.list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None


def pick_conversation(parent: QWidget | None, path: str, conversations) -> str | None:
    """Ask; the chosen conversation id, or None when the user cancels."""
    dialog = ConversationPicker(path, conversations, parent)
    return dialog.chosen() if dialog.exec() == QDialog.DialogCode.Accepted else None
