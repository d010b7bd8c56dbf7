"""Plugin `media`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_media import merging
from subsvc_media.checks import UploadRefused
from subsvc_media.models import MediaUpload
from subsvc_media.routes import cabinet, web
from subsvc_media.service import MediaNotFound, MediaUnavailable, MessengerRefused

plugin = Plugin(
    models=[MediaUpload],
    endpoints=[web, cabinet],
    tags={
        "media": "Files staged through the messenger (its file ids) and their downloads.",
        "Cabinet Media": "Ticket attachments: upload, and download with a signed token.",
    },
    errors={UploadRefused: 400, MediaUnavailable: 503, MessengerRefused: 502, MediaNotFound: 404},
    hooks=[merging],
)
