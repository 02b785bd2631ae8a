#include "mt/core/Storage.h"

#include "mt/core/Allocator.h"

namespace mt {

Storage::Storage(std::size_t nbytes, Device device)
    : nbytes_(nbytes), device_(device), allocator_(&get_allocator(device.type)) {
  data_ = allocator_->allocate(nbytes, device.index);
}

Storage::~Storage() { allocator_->deallocate(data_, nbytes_, device_.index); }

}  // namespace mt
