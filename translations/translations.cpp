// The translations library holds only the embedded .qm files (see CMakeLists.txt).
namespace tfsetup::translations {
int anchor = 0;
}
